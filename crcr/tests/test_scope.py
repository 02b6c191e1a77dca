"""New in scope: tests added between two suite SHAs, renames keeping their history."""

from crcr.upstream.scope import new_in_scope, read_tests

OLD = """
class TestA:
    def test_x(self): pass
    def test_y(self): pass
class TestOld:
    def test_p(self): pass
    def test_q(self): pass
"""
NEW = """
class TestA:
    def test_x(self): pass
    def test_y(self): pass
    def test_z(self): pass
class TestRenamed:
    def test_p(self): pass
    def test_q(self): pass
class TestBrandNew:
    def test_n(self): pass
"""


def test_new_tests_and_a_renamed_class():
    scope = new_in_scope(read_tests(OLD), read_tests(NEW))
    assert scope.new == (("TestA", "test_z"), ("TestBrandNew", "test_n"))
    assert scope.renamed == {"TestRenamed": "TestOld"}


def test_nothing_new_and_bad_source():
    assert new_in_scope(read_tests(OLD), read_tests(OLD)).new == ()
    assert read_tests("class (:") == {}
