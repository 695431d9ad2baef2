-- Schema version 7: vectors at half precision (IEEE binary16, little-endian), 2 bytes a
-- component. A 384-dimensional f32 row (1,536 bytes) is larger than a row of this WITHOUT ROWID
-- table may keep in its page, so each spilled onto an overflow page of its own: 4.7 KB per
-- vector on disk, 80 % of a database. At half precision the row fits in the page (about 0.8 KB
-- per vector). Cosines move by about 1e-5; the service rounds every new vector the same way
-- before it first uses it (`Embedding::to_half_precision`), so rankings do not change across a
-- restart. The pages freed here are reused by later writes; `VACUUM` returns them to the disk.
UPDATE vectors SET vector = rearview_half_vector(vector);
