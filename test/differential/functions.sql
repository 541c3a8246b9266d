-- Functions and aggregates the views of views.sql call, created with the
-- tables by the tests that read views.sql.

-- (vm_ views) an aggregate with moving-aggregate support, whose inverse
-- gives up on negative values (the group's state is rebuilt then)
CREATE FUNCTION diff_msum_add(s int8[], x int) RETURNS int8[] LANGUAGE sql
  IMMUTABLE STRICT AS 'SELECT ARRAY[s[1] + x, s[2] + 1]';
CREATE FUNCTION diff_msum_inv(s int8[], x int) RETURNS int8[] LANGUAGE sql
  IMMUTABLE STRICT AS 'SELECT CASE WHEN x >= 0 THEN ARRAY[s[1] - x, s[2] - 1] END';
CREATE FUNCTION diff_msum_final(s int8[]) RETURNS text LANGUAGE sql
  IMMUTABLE AS $$SELECT s[1] || '/' || s[2]$$;
CREATE AGGREGATE diff_msum(int) (SFUNC = diff_msum_add, STYPE = int8[],
  INITCOND = '{0,0}', FINALFUNC = diff_msum_final, MSFUNC = diff_msum_add,
  MINVFUNC = diff_msum_inv, MSTYPE = int8[], MINITCOND = '{0,0}',
  MFINALFUNC = diff_msum_final);
