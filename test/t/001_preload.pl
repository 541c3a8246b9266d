# Loading rules: the library refuses to load unless preloaded, and a
# preloaded server survives an immediate stop and restart.
use strict;
use warnings;
use PostgreSQL::Test::Cluster;
use PostgreSQL::Test::Utils;
use Test::More;

# A server without the library: CREATE EXTENSION must fail with a hint.
my $plain = PostgreSQL::Test::Cluster->new('plain');
$plain->init;
$plain->start;
my ($ret, $stdout, $stderr) =
  $plain->psql('postgres', 'CREATE EXTENSION hummock_stream;',
	extra_params => [ '-v', 'VERBOSITY=verbose' ]);
isnt($ret, 0, 'CREATE EXTENSION fails when the library is not preloaded');
like(
	$stderr,
	qr/hummock_stream must be loaded via shared_preload_libraries/,
	'error says the library must be preloaded');
like($stderr, qr/55000/, 'error has SQLSTATE 55000');
like($stderr, qr/HINT:\s+Add hummock_stream to shared_preload_libraries/,
	'error carries a hint');
$plain->stop;

# A preloaded server: create, crash (immediate stop), restart, query.
my $node = PostgreSQL::Test::Cluster->new('preloaded');
$node->init;
$node->append_conf('postgresql.conf',
	"shared_preload_libraries = 'hummock_stream'");
$node->start;
$node->safe_psql('postgres', 'CREATE EXTENSION hummock_stream;');
# the library's version is the extension's default version
my $default_version = $node->safe_psql('postgres',
	"SELECT default_version FROM pg_available_extensions WHERE name = 'hummock_stream'");
is($node->safe_psql('postgres', 'SELECT hummock_stream.version();'),
	$default_version, 'version before the crash');

$node->stop('immediate');
$node->start;
is($node->safe_psql('postgres', 'SELECT hummock_stream.version();'),
	$default_version, 'version after an immediate stop and restart');
is( $node->safe_psql(
		'postgres',
		"SELECT count(*) > 0 AND bool_and(initialized_at IS NOT NULL) FROM hummock_stream.shmem_areas();"
	),
	't',
	'shared memory is initialized again after the restart');
$node->stop;

done_testing();
