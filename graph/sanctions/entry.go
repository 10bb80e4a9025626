// Package sanctions is the sanctions-list engine: the normalized entry every
// official list is parsed into, name normalization, matching and the
// in-memory index. It does no I/O; parsers read from an io.Reader and the
// adapters store snapshots.
package sanctions

import "time"

// List ids of the 8 covered lists; graph.SanctionsLists names them.
const (
	ListUSSDN  = "us_sdn"
	ListUSCons = "us_cons"
	ListUN     = "un"
	ListEU     = "eu"
	ListUKHMT  = "uk_hmt"
	ListCA     = "ca"
	ListAUDFAT = "au_dfat"
	ListCHSECO = "ch_seco"
)

// Kind is what a listed entry is.
type Kind string

// Entry kinds.
const (
	Person   Kind = "person"
	Entity   Kind = "entity" // organisation, company, group
	Vessel   Kind = "vessel"
	Aircraft Kind = "aircraft"
	Unknown  Kind = "unknown"
)

// Entry is one listed party, normalized from any official list format.
type Entry struct {
	List     string   `json:"list"`      // one of the List ids
	SourceID string   `json:"source_id"` // the list's own id: OFAC ent_num, UN reference number, EU logicalId, ...
	Kind     Kind     `json:"kind"`
	Name     string   `json:"name"` // the primary name, as published
	Aliases  []Alias  `json:"aliases,omitempty"`
	Programs []string `json:"programs,omitempty"` // sanctions programmes or regimes, as published
	// Countries are ISO 3166 alpha-2 codes of nationality, citizenship,
	// registration or address, as the source states them.
	Countries    []string     `json:"countries,omitempty"`
	DatesOfBirth []string     `json:"dates_of_birth,omitempty"` // YYYY, YYYY-MM or YYYY-MM-DD
	Identifiers  []Identifier `json:"identifiers,omitempty"`
	IMO          string       `json:"imo,omitempty"` // vessels: the 7-digit IMO number
	Addresses    []string     `json:"addresses,omitempty"`
	Remarks      string       `json:"remarks,omitempty"`
	// LinkedTo are the names the source's remarks or associations link this
	// entry to ("Linked To: X."), quoted verbatim.
	LinkedTo []string  `json:"linked_to,omitempty"`
	Listed   time.Time `json:"listed,omitzero"` // date of listing, when published
}

// Alias is another name of an entry.
type Alias struct {
	Name string `json:"name"`
	// Weak marks the low-quality aliases some lists flag ("a.k.a. weak",
	// "low quality"); matching may weigh them down.
	Weak bool `json:"weak,omitempty"`
}

// Identifier is a document or registration number.
type Identifier struct {
	Type    string `json:"type"` // as published: "Passport", "Tax ID No.", "SWIFT/BIC", ...
	Value   string `json:"value"`
	Country string `json:"country,omitempty"` // ISO alpha-2 when stated
}

// Snapshot is one ingest of one list: its provenance and its entries.
type Snapshot struct {
	List      string    `json:"list"`
	Source    string    `json:"source"`    // file names or URL it was read from
	Format    string    `json:"format"`    // e.g. "ofac_csv", "un_xml", "eu_xml", "uk_csv", "ca_xml", "au_xlsx", "ch_xml", "jsonl"
	Published time.Time `json:"published"` // the publication date the source states, else zero
	SHA256    string    `json:"sha256"`    // of the input bytes, all files in order
	Entries   []Entry   `json:"-"`
}
