-- Caption search plans from the statistics of caption_folded. With the default sample (100
-- histogram bounds), a rare word that happened to fall on one bound was estimated at 1 % of the
-- posts, and about one ANALYZE in fifty then sent its search down the date index through every
-- post instead of to the trigram index (seen at 100,000 posts: 8 plans of 400 ANALYZEs, and a
-- failed EXPLAIN test). With 1,000 bounds a bound weighs 0.1 %: 200 ANALYZEs of the same posts
-- all chose the trigram index. ANALYZE of posts then samples up to 300,000 rows.
ALTER TABLE posts ALTER COLUMN caption_folded SET STATISTICS 1000;
