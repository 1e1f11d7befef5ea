-- Working together (design.md §6): assignment settings, each member's capacity and place in the
-- round-robin, and the members a private note mentions. Presence, viewing and typing are kept in
-- memory only: nothing here is about them.

-- Auto-assignment is off until an admin turns it on; assign-on-first-reply is on.
ALTER TABLE workspaces ADD COLUMN auto_assign INTEGER NOT NULL DEFAULT 0;
ALTER TABLE workspaces ADD COLUMN assign_on_first_reply INTEGER NOT NULL DEFAULT 1;

-- Open conversations auto-assignment gives a member at most (0: none).
ALTER TABLE members ADD COLUMN capacity INTEGER NOT NULL DEFAULT 10 CHECK (capacity BETWEEN 0 AND 1000);
-- The round-robin: the member whose turn is oldest (lowest) is next; a turn taken moves them
-- behind everyone (the workspace's highest + 1). Survives restarts.
ALTER TABLE members ADD COLUMN assign_turn INTEGER NOT NULL DEFAULT 0;

-- A private note's mentioned members (JSON array of member ids); NULL when it names nobody.
ALTER TABLE messages ADD COLUMN mentions TEXT;
