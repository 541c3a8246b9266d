-- Window functions: rank(), dense_rank(), percent_rank(), ntile(), lag(),
-- lead(), first_value(), last_value(), nth_value() and aggregates OVER
-- (PARTITION BY ... ORDER BY ... ROWS|RANGE|GROUPS ...), also over
-- different PARTITION BY lists in one query.  Every partition
-- an epoch touches is computed again by Postgres's WindowAgg; the view
-- equals its query (ORDER BY keys here are unique where ties would make
-- the result depend on the order rows are read in).
CREATE EXTENSION hummock_stream;
CREATE EXTENSION hummock_stream_test;	-- views_differ(): each view against its query
CREATE TABLE pay (id int PRIMARY KEY, dept text, amount int, at date);
INSERT INTO pay SELECT i, 'd' || (i % 4), (i * 37) % 100, date '2026-01-01' + i % 20
  FROM generate_series(1, 50) i;

SELECT hummock_stream.create_materialized_view('w_rank',
  $$SELECT id, dept, amount, rank() OVER w AS r, dense_rank() OVER w AS dr,
           percent_rank() OVER w AS pr, ntile(3) OVER w AS tile
      FROM pay WINDOW w AS (PARTITION BY dept ORDER BY amount DESC)$$);
SELECT hummock_stream.create_materialized_view('w_lag',
  $$SELECT id, dept, amount - lag(amount, 1, 0) OVER (PARTITION BY dept ORDER BY id) AS delta,
           lead(id) OVER (PARTITION BY dept ORDER BY id) AS next_id,
           first_value(amount) OVER (PARTITION BY dept ORDER BY id) AS first_amount,
           last_value(amount) OVER (PARTITION BY dept ORDER BY id ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS last_amount,
           nth_value(amount, 2) OVER (PARTITION BY dept ORDER BY id) AS second
      FROM pay$$);
SELECT hummock_stream.create_materialized_view('w_running',
  $$SELECT id, dept, sum(amount) OVER (PARTITION BY dept ORDER BY id) AS running,
           avg(amount) OVER (PARTITION BY dept ORDER BY id ROWS BETWEEN 2 PRECEDING AND CURRENT ROW) AS moving,
           count(*) OVER (PARTITION BY dept) AS in_dept,
           max(amount) OVER (PARTITION BY dept ORDER BY at RANGE BETWEEN '3 days' PRECEDING AND CURRENT ROW) AS recent_max,
           sum(amount) FILTER (WHERE amount > 50) OVER (PARTITION BY dept ORDER BY id GROUPS BETWEEN 1 PRECEDING AND 1 FOLLOWING) AS big
      FROM pay$$);
-- no PARTITION BY: one partition; a row number over a unique order
SELECT hummock_stream.create_materialized_view('w_global',
  'SELECT id, row_number() OVER (ORDER BY amount, id) AS rn, sum(amount) OVER () AS total FROM pay WHERE id % 3 = 0');
-- a window over a join, and a view over a window view
SELECT hummock_stream.create_materialized_view('w_share',
  $$SELECT dept, id, amount * 100.0 / sum(amount) OVER (PARTITION BY dept) AS pct FROM pay$$);
SELECT hummock_stream.create_materialized_view('w_over',
  'SELECT dept, count(*) AS top_two FROM w_rank WHERE r <= 2 GROUP BY dept');
-- windows over groups: HAVING first, then the window functions
SELECT hummock_stream.create_materialized_view('w_agg_rank',
  $$SELECT dept, sum(amount) AS total, rank() OVER (ORDER BY sum(amount) DESC, dept) AS r,
           sum(sum(amount)) OVER () AS grand, lag(dept) OVER (ORDER BY dept) AS prev_dept
      FROM pay GROUP BY dept HAVING count(*) > 2$$);
-- windows over different PARTITION BY lists: one OverWindow each, stacked
SELECT hummock_stream.create_materialized_view('w_mixed',
  $$SELECT id, dept, rank() OVER (PARTITION BY dept ORDER BY amount, id) AS in_dept,
           rank() OVER (ORDER BY amount, id) AS overall,
           sum(amount) OVER (PARTITION BY at) AS same_day,
           count(*) OVER (PARTITION BY dept, at) AS dept_day,
           lag(id) OVER (PARTITION BY dept ORDER BY id) AS prev_in_dept
      FROM pay$$);
SELECT hummock_stream.create_materialized_view('w_mixed_groups',
  $$SELECT dept, at, sum(amount) AS total,
           sum(sum(amount)) OVER (PARTITION BY dept) AS dept_total,
           rank() OVER (PARTITION BY at ORDER BY sum(amount) DESC, dept) AS day_rank
      FROM pay GROUP BY dept, at$$);
SELECT operators FROM hummock_stream.fragments WHERE job = 'w_mixed'::regclass;
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM w_rank WHERE dept = 'd1' ORDER BY r, id;

UPDATE pay SET amount = amount + 60 WHERE id % 7 = 0;
UPDATE pay SET dept = 'd9' WHERE id IN (1, 2, 3);
DELETE FROM pay WHERE id % 11 = 0;
INSERT INTO pay VALUES (100, 'd1', 99, '2026-01-05'), (101, 'd5', 5, '2026-01-06');
SELECT hummock_stream.wait();
SELECT * FROM hummock_stream_test.views_differ();
SELECT * FROM w_rank WHERE dept IN ('d1', 'd9') ORDER BY dept, r, id;
SELECT * FROM w_over ORDER BY dept;
SELECT * FROM w_agg_rank ORDER BY r;

-- what it keeps
SELECT job, ordinal, holds FROM hummock_stream.state_tables WHERE job = 'w_rank'::regclass ORDER BY ordinal;
SELECT * FROM w_mixed WHERE id IN (4, 5, 6, 100) ORDER BY id;

SET client_min_messages = warning;	-- the capture log's name has an OID
DROP EXTENSION hummock_stream CASCADE;
RESET client_min_messages;
DROP TABLE pay;
