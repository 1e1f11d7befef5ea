-- Workspace settings (design.md §8): where customers and Meta reach this desk from the internet.
-- Email links use it unless the workspace's email settings give their own; NULL: this machine.
ALTER TABLE workspaces ADD COLUMN public_url TEXT;
