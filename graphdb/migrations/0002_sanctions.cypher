// 0002_sanctions: lookups on sanctions entries besides their id: by list
// (replacing one list's snapshot) and by normalized name key (is a party
// itself listed, by exact normalized name).

CREATE INDEX sanctions_entry_list IF NOT EXISTS
FOR (s:SanctionsEntry) ON (s.list);

CREATE INDEX sanctions_entry_name_key IF NOT EXISTS
FOR (s:SanctionsEntry) ON (s.name_key);
