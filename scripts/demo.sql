-- scripts/demo.sql -- what scripts/demo.sh shows in psql
CREATE EXTENSION hummock_stream;
SELECT hummock_stream.version();
SELECT * FROM hummock_stream.settings;
SELECT name, size_bytes, initialized_at FROM hummock_stream.shmem_areas();
