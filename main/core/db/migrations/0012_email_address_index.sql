-- An unsubscribe is for an address: finding every contact with it (any case) uses this index.
CREATE INDEX contacts_scope_email ON contacts(workspace_id, environment, lower(trim(email)))
  WHERE email IS NOT NULL;
