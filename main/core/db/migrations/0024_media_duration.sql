-- How long a voice note, audio file or video plays (design.md §5): integer milliseconds, read
-- from the stored file once it is in (its container's header); NULL when not audio or video,
-- when the file does not say, or for records stored before this migration.
ALTER TABLE media ADD COLUMN duration_ms INTEGER;
