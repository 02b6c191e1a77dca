"""The results warehouse: every leg and every test result, in ClickHouse.

Embedded by default (chdb, in-process, one directory), a real ClickHouse server by URL
(clickhouse-driver, native protocol); one schema and one set of queries for both.
"""
