-- A new conversation and a new label row add to their counts in the repo's insert (one UPSERT
-- each, same transaction) instead of an AFTER INSERT trigger. Any trigger on a table makes every
-- INSERT into it open a statement journal (a copy of each page the insert touches, freed at the
-- statement's end): a third of what creating a conversation cost. The update and delete triggers
-- stay (those statements journal anyway).
DROP TRIGGER conversation_counts_insert;
DROP TRIGGER conversation_label_counts_insert;
