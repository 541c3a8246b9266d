-- A TPC-H data generator in SQL, for tests and benchmarks (not part of
-- the extension).  It follows the specification's schema, key relations
-- and value domains closely enough that the 22 queries' constants select
-- rows (the nations and regions, p_type, p_container, p_brand, the 92
-- colour words of p_name, market segments, priorities, ship modes and
-- instructions, the return flag and line status rules, customers whose key
-- is a multiple of 3 having no orders, comments that sometimes say
-- "special ... requests" or "Customer ... Complaints"); it is not the
-- official dbgen (text and distributions are simpler).  Deterministic for
-- a given seed.
--
--   SELECT tpch_generate(0.01);        -- scale factor: 60,000 line items
--   SELECT tpch_rf1(0.01, round);      -- new sales: SF * 1500 orders
--   SELECT tpch_rf2(0.01);             -- old sales removed: SF * 1500 orders
CREATE TABLE region (r_regionkey int PRIMARY KEY, r_name char(25) NOT NULL,
  r_comment varchar(152));
CREATE TABLE nation (n_nationkey int PRIMARY KEY, n_name char(25) NOT NULL,
  n_regionkey int NOT NULL, n_comment varchar(152));
CREATE TABLE part (p_partkey int PRIMARY KEY, p_name varchar(55) NOT NULL,
  p_mfgr char(25) NOT NULL, p_brand char(10) NOT NULL, p_type varchar(25) NOT NULL,
  p_size int NOT NULL, p_container char(10) NOT NULL, p_retailprice numeric(15,2) NOT NULL,
  p_comment varchar(23) NOT NULL);
CREATE TABLE supplier (s_suppkey int PRIMARY KEY, s_name char(25) NOT NULL,
  s_address varchar(40) NOT NULL, s_nationkey int NOT NULL, s_phone char(15) NOT NULL,
  s_acctbal numeric(15,2) NOT NULL, s_comment varchar(101) NOT NULL);
CREATE TABLE partsupp (ps_partkey int NOT NULL, ps_suppkey int NOT NULL,
  ps_availqty int NOT NULL, ps_supplycost numeric(15,2) NOT NULL,
  ps_comment varchar(199) NOT NULL, PRIMARY KEY (ps_partkey, ps_suppkey));
CREATE TABLE customer (c_custkey int PRIMARY KEY, c_name varchar(25) NOT NULL,
  c_address varchar(40) NOT NULL, c_nationkey int NOT NULL, c_phone char(15) NOT NULL,
  c_acctbal numeric(15,2) NOT NULL, c_mktsegment char(10) NOT NULL,
  c_comment varchar(117) NOT NULL);
CREATE TABLE orders (o_orderkey bigint PRIMARY KEY, o_custkey int NOT NULL,
  o_orderstatus char(1) NOT NULL, o_totalprice numeric(15,2) NOT NULL,
  o_orderdate date NOT NULL, o_orderpriority char(15) NOT NULL, o_clerk char(15) NOT NULL,
  o_shippriority int NOT NULL, o_comment varchar(79) NOT NULL);
CREATE TABLE lineitem (l_orderkey bigint NOT NULL, l_partkey int NOT NULL,
  l_suppkey int NOT NULL, l_linenumber int NOT NULL, l_quantity numeric(15,2) NOT NULL,
  l_extendedprice numeric(15,2) NOT NULL, l_discount numeric(15,2) NOT NULL,
  l_tax numeric(15,2) NOT NULL, l_returnflag char(1) NOT NULL, l_linestatus char(1) NOT NULL,
  l_shipdate date NOT NULL, l_commitdate date NOT NULL, l_receiptdate date NOT NULL,
  l_shipinstruct char(25) NOT NULL, l_shipmode char(10) NOT NULL,
  l_comment varchar(44) NOT NULL, PRIMARY KEY (l_orderkey, l_linenumber));

-- n words drawn from words, separated by spaces
CREATE FUNCTION tpch_words(words text[], n int) RETURNS text
LANGUAGE sql VOLATILE AS $$
  SELECT string_agg(words[1 + floor(random() * cardinality(words))::int], ' ')
    FROM generate_series(1, n) g WHERE n IS NOT NULL
$$;

CREATE FUNCTION tpch_pick(choices text[]) RETURNS text
LANGUAGE sql VOLATILE AS $$
  SELECT choices[1 + floor(random() * cardinality(choices))::int]
$$;

-- the comment vocabulary: mostly filler, sometimes the words queries seek
CREATE FUNCTION tpch_comment(n int) RETURNS text
LANGUAGE sql VOLATILE AS $$
  SELECT tpch_words(ARRAY['furiously', 'carefully', 'quickly', 'slyly', 'blithely',
    'final', 'regular', 'express', 'ironic', 'pending', 'bold', 'even', 'unusual',
    'deposits', 'packages', 'accounts', 'theodolites', 'foxes', 'pinto', 'beans',
    'instructions', 'platelets', 'asymptotes', 'special', 'requests', 'dependencies',
    'ideas', 'excuses', 'sleep', 'haggle', 'nag', 'wake', 'are', 'across', 'above'], n)
$$;

CREATE FUNCTION tpch_phone(nation int) RETURNS text
LANGUAGE sql VOLATILE AS $$
  SELECT (nation + 10)::text || '-' || (100 + floor(random() * 900))::int || '-' ||
         (100 + floor(random() * 900))::int || '-' || (1000 + floor(random() * 9000))::int
$$;

-- the part's retail price, from its key (as the specification computes it)
CREATE FUNCTION tpch_retailprice(partkey int) RETURNS numeric
LANGUAGE sql IMMUTABLE AS $$
  SELECT ((90000 + (partkey / 10) % 20001 + 100 * (partkey % 1000)) / 100.0)::numeric(15,2)
$$;

-- the i-th (0..3) supplier of a part, among s suppliers
CREATE FUNCTION tpch_partsupp(partkey int, i int, s int) RETURNS int
LANGUAGE sql IMMUTABLE AS $$
  SELECT ((partkey + i * (s / 4 + (partkey - 1) / s)) % s) + 1
$$;

-- Orders first .. first + n - 1 with their line items (1 to 7 each).
CREATE FUNCTION tpch_orders(first bigint, n int) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  customers int := (SELECT count(*) FROM customer);
  parts int := (SELECT count(*) FROM part);
  suppliers int := (SELECT count(*) FROM supplier);
  clerks int := greatest(customers / 150, 1);
BEGIN
  CREATE TEMP TABLE tpch_new_orders ON COMMIT DROP AS
  SELECT k AS o_orderkey,
         CASE WHEN c % 3 = 0 THEN c - 1 ELSE c END AS o_custkey,
         date '1992-01-01' + floor(random() * 2405)::int AS o_orderdate,
         1 + floor(random() * 7)::int AS lines
    FROM (SELECT k, 1 + floor(random() * customers)::int AS c
            FROM generate_series(first, first + n - 1) k) x;
  INSERT INTO lineitem
  SELECT o_orderkey, pk, tpch_partsupp(pk, si, suppliers), ln, qty,
         qty * tpch_retailprice(pk), disc, tax,
         CASE WHEN ship + r <= date '1995-06-17'
              THEN CASE WHEN random() < 0.5 THEN 'R' ELSE 'A' END ELSE 'N' END,
         CASE WHEN ship > date '1995-06-17' THEN 'O' ELSE 'F' END,
         ship, commit, ship + r, instruct, mode, cmt
    FROM (SELECT o.o_orderkey, ln, 1 + floor(random() * parts)::int AS pk,
                 floor(random() * 4)::int AS si, 1 + floor(random() * 50)::int AS qty,
                 (floor(random() * 11) / 100)::numeric(15,2) AS disc,
                 (floor(random() * 9) / 100)::numeric(15,2) AS tax,
                 o.o_orderdate + 1 + floor(random() * 121)::int AS ship,
                 o.o_orderdate + 30 + floor(random() * 61)::int AS commit,
                 1 + floor(random() * 30)::int AS r,
                 tpch_pick(ARRAY['DELIVER IN PERSON', 'COLLECT COD', 'NONE', 'TAKE BACK RETURN']) AS instruct,
                 tpch_pick(ARRAY['REG AIR', 'AIR', 'RAIL', 'SHIP', 'TRUCK', 'MAIL', 'FOB']) AS mode,
                 tpch_comment(3) AS cmt
            FROM tpch_new_orders o, generate_series(1, o.lines) ln) x;
  INSERT INTO orders
  SELECT o.o_orderkey, o.o_custkey,
         CASE WHEN l.all_f THEN 'F' WHEN l.all_o THEN 'O' ELSE 'P' END,
         l.total, o.o_orderdate,
         tpch_pick(ARRAY['1-URGENT', '2-HIGH', '3-MEDIUM', '4-NOT SPECIFIED', '5-LOW']),
         'Clerk#' || lpad((1 + floor(random() * clerks))::int::text, 9, '0'), 0,
         tpch_comment(5)
    FROM tpch_new_orders o
    JOIN (SELECT l_orderkey, sum(l_extendedprice * (1 + l_tax) * (1 - l_discount)) AS total,
                 bool_and(l_linestatus = 'F') AS all_f, bool_and(l_linestatus = 'O') AS all_o
            FROM lineitem WHERE l_orderkey BETWEEN first AND first + n - 1
           GROUP BY l_orderkey) l ON l.l_orderkey = o.o_orderkey;
  DROP TABLE tpch_new_orders;
END $$;

CREATE FUNCTION tpch_generate(sf float8, seed float8 DEFAULT 0.42) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  suppliers int := greatest((10000 * sf)::int, 8);
  parts int := greatest((200000 * sf)::int, 20);
  customers int := greatest((150000 * sf)::int, 30);
BEGIN
  PERFORM setseed(seed);
  INSERT INTO region VALUES (0, 'AFRICA', tpch_comment(6)), (1, 'AMERICA', tpch_comment(6)),
    (2, 'ASIA', tpch_comment(6)), (3, 'EUROPE', tpch_comment(6)),
    (4, 'MIDDLE EAST', tpch_comment(6));
  INSERT INTO nation
  SELECT k - 1, name, region, tpch_comment(6)
    FROM unnest(ARRAY['ALGERIA', 'ARGENTINA', 'BRAZIL', 'CANADA', 'EGYPT', 'ETHIOPIA',
                      'FRANCE', 'GERMANY', 'INDIA', 'INDONESIA', 'IRAN', 'IRAQ', 'JAPAN',
                      'JORDAN', 'KENYA', 'MOROCCO', 'MOZAMBIQUE', 'PERU', 'CHINA',
                      'ROMANIA', 'SAUDI ARABIA', 'VIETNAM', 'RUSSIA', 'UNITED KINGDOM',
                      'UNITED STATES'],
                ARRAY[0, 1, 1, 1, 4, 0, 3, 3, 2, 2, 4, 4, 2, 4, 0, 0, 0, 1, 2, 3, 4, 2, 3, 3, 1])
         WITH ORDINALITY AS n(name, region, k);
  INSERT INTO supplier
  SELECT k, 'Supplier#' || lpad(k::text, 9, '0'), tpch_comment(2), nk, tpch_phone(nk),
         (-999.99 + floor(random() * 1099999) / 100)::numeric(15,2),
         CASE WHEN k % 7 = 3 THEN 'Customer ' || tpch_comment(2) || ' Complaints'
              ELSE tpch_comment(6) END
    FROM (SELECT k, floor(random() * 25)::int AS nk FROM generate_series(1, suppliers) k) x;
  INSERT INTO part
  SELECT k, tpch_words(ARRAY['almond', 'antique', 'aquamarine', 'azure', 'beige', 'bisque',
           'black', 'blanched', 'blue', 'blush', 'brown', 'burlywood', 'burnished',
           'chartreuse', 'chiffon', 'chocolate', 'coral', 'cornflower', 'cornsilk', 'cream',
           'cyan', 'dark', 'deep', 'dim', 'dodger', 'drab', 'firebrick', 'floral', 'forest',
           'frosted', 'gainsboro', 'ghost', 'goldenrod', 'green', 'grey', 'honeydew', 'hot',
           'indian', 'ivory', 'khaki', 'lace', 'lavender', 'lawn', 'lemon', 'light', 'lime',
           'linen', 'magenta', 'maroon', 'medium', 'metallic', 'midnight', 'mint', 'misty',
           'moccasin', 'navajo', 'navy', 'olive', 'orange', 'orchid', 'pale', 'papaya',
           'peach', 'peru', 'pink', 'plum', 'powder', 'puff', 'purple', 'red', 'rose', 'rosy',
           'royal', 'saddle', 'salmon', 'sandy', 'seashell', 'sienna', 'sky', 'slate',
           'smoke', 'snow', 'spring', 'steel', 'tan', 'thistle', 'tomato', 'turquoise',
           'violet', 'wheat', 'white', 'yellow'], 5),
         'Manufacturer#' || m, 'Brand#' || m || (1 + floor(random() * 5))::int,
         tpch_pick(ARRAY['STANDARD', 'SMALL', 'MEDIUM', 'LARGE', 'ECONOMY', 'PROMO']) || ' ' ||
         tpch_pick(ARRAY['ANODIZED', 'BURNISHED', 'PLATED', 'POLISHED', 'BRUSHED']) || ' ' ||
         tpch_pick(ARRAY['TIN', 'NICKEL', 'BRASS', 'STEEL', 'COPPER']),
         1 + floor(random() * 50)::int,
         tpch_pick(ARRAY['SM', 'LG', 'MED', 'JUMBO', 'WRAP']) || ' ' ||
         tpch_pick(ARRAY['CASE', 'BOX', 'BAG', 'JAR', 'PKG', 'PACK', 'CAN', 'DRUM']),
         tpch_retailprice(k), left(tpch_comment(2), 23)
    FROM (SELECT k, 1 + floor(random() * 5)::int AS m FROM generate_series(1, parts) k) x;
  INSERT INTO partsupp
  SELECT p, tpch_partsupp(p, i, suppliers), 1 + floor(random() * 9999)::int,
         (1 + floor(random() * 99900) / 100)::numeric(15,2), tpch_comment(8)
    FROM generate_series(1, parts) p, generate_series(0, 3) i;
  INSERT INTO customer
  SELECT k, 'Customer#' || lpad(k::text, 9, '0'), tpch_comment(2), nk, tpch_phone(nk),
         (-999.99 + floor(random() * 1099999) / 100)::numeric(15,2),
         tpch_pick(ARRAY['AUTOMOBILE', 'BUILDING', 'FURNITURE', 'MACHINERY', 'HOUSEHOLD']),
         tpch_comment(6)
    FROM (SELECT k, floor(random() * 25)::int AS nk FROM generate_series(1, customers) k) x;
  PERFORM tpch_orders(1, (1500000 * sf)::int);
END $$;

-- Refresh function 1: new orders (SF * 1500) after the last one.
CREATE FUNCTION tpch_rf1(sf float8) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  PERFORM tpch_orders((SELECT coalesce(max(o_orderkey), 0) + 1 FROM orders),
                      greatest((1500 * sf)::int, 1));
END $$;

-- Refresh function 2: the oldest orders (SF * 1500) and their line items gone.
CREATE FUNCTION tpch_rf2(sf float8) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
  last bigint := (SELECT max(o_orderkey) FROM
                    (SELECT o_orderkey FROM orders ORDER BY o_orderkey
                      LIMIT greatest((1500 * sf)::int, 1)) x);
BEGIN
  DELETE FROM lineitem WHERE l_orderkey <= last;
  DELETE FROM orders WHERE o_orderkey <= last;
END $$;
