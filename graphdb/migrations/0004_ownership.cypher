// 0004_ownership: lookups on ownership entities besides their id (0001):
// by normalized name key, for entities(name) search. Nodes are
// (:Entity:Company|:Person|:Trust|:Vessel {id, kind, name, name_key, ...});
// edges are OWNS and CONTROLS, each keyed by a `key` property.

CREATE INDEX entity_name_key IF NOT EXISTS
FOR (e:Entity) ON (e.name_key);
