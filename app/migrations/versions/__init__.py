"""One file per schema revision, applied in order by `catalog migrate`."""
