package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/tradecompliance/compliance/graph/ownership"
)

// BODS mapping (0.2 and 0.4; documented in the README):
//
//   - Node ids are "bods:" + the 0.2 statementID or the 0.4 recordId.
//     Person statements give persons; entity statements give companies,
//     except arrangements (trusts and nominations), which give trusts.
//   - A shareholding interest gives OWNS with its share: exact, or
//     minimum/exclusiveMinimum .. maximum/exclusiveMaximum, or unknown.
//     exclusiveMinimum/exclusiveMaximum are numbers in 0.4 and booleans
//     (flags on minimum/maximum) in 0.2. Bands are closed intervals: an
//     exclusive bound of 25 is carried as 25.
//   - Voting rights give CONTROLS voting_rights (its share kept as a band);
//     board appointment, board member and board chair give CONTROLS
//     board_appointment; every other interest (other influence, trustee,
//     settlor, protector, beneficiary, nominator, senior managing official,
//     rights to profit or surplus) gives CONTROLS other_influence. A
//     "nominee" interest also flags the interested party as a nominee.
//   - A relationship that states no interest, or an interest without a
//     type, gives OWNS with an unknown share (0..100): a beneficial-ownership
//     register recorded the party as an owner without saying how much, so
//     it is at least a "possible" beneficial owner, never a zero.
//   - Interests with an endDate have ended and give no edge. A 0.4
//     relationship record stated more than once counts only by its last
//     statement (latest statementDate, then file order); if that one has
//     recordStatus "closed" the record gives no edge. A 0.2 ownership
//     statement listed in another statement's replacesStatements gives no
//     edge (the replacing statement restates what still holds).
//   - An indirect interest (0.4 directOrIndirect "indirect") whose
//     relationship lists componentRecords gives no edge: it restates a
//     chain whose direct edges are in the file, and an extra edge would
//     count the holding twice; the engine recomputes the indirect figure
//     from the chain. Without componentRecords the chain is not stated, so
//     the interest gives an edge owner -> subject with its share and the
//     source suffixed " (indirect)". A 0.2 indirect interest (interestLevel
//     "indirect") gives no edge: 0.2 cannot say whether the chain is in the
//     file (a 0.3 componentStatementIDs can, and then also gives no edge),
//     so it is skipped rather than risk counting a holding twice.
//   - A party the file refers to but does not describe becomes a stub
//     (named "BODS statement ID"), created only if absent.
//   - 0.2 replacesStatements: references to a replaced statement resolve to
//     the statement that replaced it, within the file. Across imports the
//     replaced node stays stored (its edges are re-keyed to the new id).
//   - Unspecified interested parties give no edge.

// bodsStatement holds the fields of both versions that the importer reads.
type bodsStatement struct {
	// 0.2
	StatementID   string          `json:"statementID"`
	StatementType string          `json:"statementType"`
	Subject       *bodsRef        `json:"subject"`
	Interested    *bodsRef        `json:"interestedParty"`
	Replaces      []string        `json:"replacesStatements"`
	Components02  []string        `json:"componentStatementIDs"` // BODS 0.3
	EntityType    json.RawMessage `json:"entityType"`
	// 0.2 entity and person fields live at the top level; 0.4 ones in
	// recordDetails.
	bodsDetails
	// 0.4
	StatementID04 string       `json:"statementId"`
	RecordID      string       `json:"recordId"`
	RecordType    string       `json:"recordType"`
	RecordStatus  string       `json:"recordStatus"`
	RecordDetails *bodsDetails `json:"recordDetails"`

	StatementDate string      `json:"statementDate"`
	Source        *bodsSource `json:"source"`
	Publication   *struct {
		Publisher *struct {
			Name string `json:"name"`
		} `json:"publisher"`
	} `json:"publicationDetails"`
}

type bodsRef struct {
	Entity string `json:"describedByEntityStatement"`
	Person string `json:"describedByPersonStatement"`
}

type bodsSource struct {
	Description string `json:"description"`
	URL         string `json:"url"`
}

type bodsDetails struct {
	Name       string          `json:"name"`
	EntityType json.RawMessage `json:"entityType"`
	PersonType string          `json:"personType"`
	Names      []struct {
		Type       string `json:"type"`
		FullName   string `json:"fullName"`
		GivenName  string `json:"givenName"`
		FamilyName string `json:"familyName"`
	} `json:"names"`
	Jurisdiction  *bodsCode  `json:"jurisdiction"`
	Incorporated  *bodsCode  `json:"incorporatedInJurisdiction"`
	Nationalities []bodsCode `json:"nationalities"`
	Identifiers   []struct {
		ID         string `json:"id"`
		Scheme     string `json:"scheme"`
		SchemeName string `json:"schemeName"`
	} `json:"identifiers"`
	Addresses []struct {
		Address string `json:"address"`
	} `json:"addresses"`
	FoundingDate string          `json:"foundingDate"`
	BirthDate    string          `json:"birthDate"`
	Interests    []bodsInterest  `json:"interests"`
	Subject04    json.RawMessage `json:"subject"`
	Interested04 json.RawMessage `json:"interestedParty"`
	Components04 []string        `json:"componentRecords"`
}

type bodsCode struct {
	Code string `json:"code"`
	Name string `json:"name"`
}

type bodsInterest struct {
	Type  string `json:"type"`
	Share *struct {
		Exact   *float64 `json:"exact"`
		Minimum *float64 `json:"minimum"`
		Maximum *float64 `json:"maximum"`
		// A number in 0.4 (the bound itself), a boolean in 0.2 (whether
		// minimum or maximum is exclusive).
		ExclusiveMin json.RawMessage `json:"exclusiveMinimum"`
		ExclusiveMax json.RawMessage `json:"exclusiveMaximum"`
	} `json:"share"`
	StartDate        string `json:"startDate"`
	EndDate          string `json:"endDate"`
	DirectOrIndirect string `json:"directOrIndirect"` // 0.4
	InterestLevel    string `json:"interestLevel"`    // 0.2
}

// ParseBODS parses BODS 0.2 or 0.4 statements, as one JSON array or as
// JSON lines, into a batch (see the mapping above). It returns an invalid
// error naming the file and line of the first malformed statement.
func ParseBODS(file string, data []byte) (ownership.Batch, Stats, error) {
	st := Stats{Format: BODS}
	type located struct {
		s    bodsStatement
		line int
	}
	var all []located
	t := bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	offset := len(data) - len(t)
	lineAt := func(off int) int { return 1 + bytes.Count(data[:min(off, len(data))], []byte("\n")) }
	if len(t) > 0 && t[0] == '[' {
		dec := json.NewDecoder(bytes.NewReader(data))
		if _, err := dec.Token(); err != nil {
			return ownership.Batch{}, st, lineError(file, lineAt(offset), "not a JSON array: %v", err)
		}
		for dec.More() {
			start := int(dec.InputOffset())
			for start < len(data) && strings.IndexByte(" \t\r\n,", data[start]) >= 0 {
				start++
			}
			var s bodsStatement
			if err := dec.Decode(&s); err != nil {
				return ownership.Batch{}, st, lineError(file, lineAt(start), "malformed statement: %s", jsonMessage(err))
			}
			all = append(all, located{s, lineAt(start)})
		}
		if _, err := dec.Token(); err != nil {
			return ownership.Batch{}, st, lineError(file, lineAt(int(dec.InputOffset())), "malformed JSON array: %s", jsonMessage(err))
		}
	} else {
		for i, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			if i == 0 {
				line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
			}
			var s bodsStatement
			if err := json.Unmarshal(line, &s); err != nil {
				return ownership.Batch{}, st, lineError(file, i+1, "malformed statement: %s", jsonMessage(err))
			}
			all = append(all, located{s, i + 1})
		}
	}
	if len(all) == 0 {
		return ownership.Batch{}, st, lineError(file, 1, "no BODS statements")
	}

	b := newBuilder()
	replaced := map[string]string{} // 0.2: replaced statement id -> replacing id
	for _, l := range all {
		for _, r := range l.s.Replaces {
			replaced[r] = l.s.StatementID
		}
	}
	resolve := func(id string) string {
		for i := 0; i < 10; i++ { // bounded: replacement chains could loop
			next, ok := replaced[id]
			if !ok || next == id {
				break
			}
			id = next
		}
		return id
	}
	type rel struct {
		subject, party string
		partyKind      ownership.Kind
		interests      []bodsInterest
		asOf, source   string
		line           int
		v02            bool // BODS 0.2 (or 0.3) statement
		chain          bool // the statement names its component chain
	}
	// 0.4: the last statement of each relationship record wins (the latest
	// statementDate; file order among equal or missing dates), so a record
	// re-stated as "closed" later in the file gives no edge.
	latest := map[string]int{} // recordId -> index into all
	for i, l := range all {
		if l.s.RecordType != "relationship" || l.s.RecordID == "" {
			continue
		}
		if j, ok := latest[l.s.RecordID]; ok {
			prev, cur := all[j].s.StatementDate, l.s.StatementDate
			if prev != "" && cur != "" && cur < prev {
				continue
			}
		}
		latest[l.s.RecordID] = i
	}
	var rels []rel
	for i, l := range all {
		s := l.s
		st.Records++
		v04 := s.RecordType != ""
		if !v04 && s.StatementType == "" {
			return ownership.Batch{}, st, lineError(file, l.line, "statement has neither statementType (BODS 0.2) nor recordType (BODS 0.4)")
		}
		src := "bods"
		if s.Source != nil && s.Source.Description != "" {
			src = "bods: " + s.Source.Description
		} else if s.Publication != nil && s.Publication.Publisher != nil && s.Publication.Publisher.Name != "" {
			src = "bods: " + s.Publication.Publisher.Name
		}
		if v04 {
			if s.RecordID == "" {
				return ownership.Batch{}, st, lineError(file, l.line, "BODS 0.4 statement has no recordId")
			}
			d := s.RecordDetails
			if d == nil {
				return ownership.Batch{}, st, lineError(file, l.line, "BODS 0.4 statement has no recordDetails")
			}
			switch s.RecordType {
			case "entity", "person":
				b.node(bodsNode("bods:"+s.RecordID, s.RecordType == "person", d, src))
			case "relationship":
				if latest[s.RecordID] != i {
					st.skip("superseded statement")
					continue
				}
				if s.RecordStatus == "closed" {
					st.skip("closed relationship")
					continue
				}
				var subject string
				if err := json.Unmarshal(d.Subject04, &subject); err != nil || subject == "" {
					return ownership.Batch{}, st, lineError(file, l.line, "relationship subject must be a recordId string")
				}
				var party string
				if err := json.Unmarshal(d.Interested04, &party); err != nil || party == "" {
					st.skip("unspecified interested party")
					continue
				}
				rels = append(rels, rel{subject: "bods:" + subject, party: "bods:" + party, interests: d.Interests,
					asOf: s.StatementDate, source: src, line: l.line, chain: len(d.Components04) > 0})
			default:
				return ownership.Batch{}, st, lineError(file, l.line, "unknown recordType %q", s.RecordType)
			}
			continue
		}
		if s.StatementID == "" {
			return ownership.Batch{}, st, lineError(file, l.line, "BODS 0.2 statement has no statementID")
		}
		switch s.StatementType {
		case "entityStatement", "personStatement":
			d := s.bodsDetails
			if len(d.EntityType) == 0 {
				d.EntityType = s.EntityType
			}
			b.node(bodsNode("bods:"+s.StatementID, s.StatementType == "personStatement", &d, src))
		case "ownershipOrControlStatement":
			if by, ok := replaced[s.StatementID]; ok && by != s.StatementID {
				st.skip("replaced statement")
				continue
			}
			if s.Subject == nil || s.Subject.Entity == "" {
				return ownership.Batch{}, st, lineError(file, l.line, "ownership statement has no subject.describedByEntityStatement")
			}
			if s.Interested == nil || (s.Interested.Person == "" && s.Interested.Entity == "") {
				st.skip("unspecified interested party")
				continue
			}
			r := rel{subject: "bods:" + resolve(s.Subject.Entity), interests: s.Interests, asOf: s.StatementDate, source: src, line: l.line,
				v02: true, chain: len(s.Components02) > 0}
			if s.Interested.Person != "" {
				r.party, r.partyKind = "bods:"+resolve(s.Interested.Person), ownership.Person
			} else {
				r.party = "bods:" + resolve(s.Interested.Entity)
			}
			rels = append(rels, r)
		default:
			return ownership.Batch{}, st, lineError(file, l.line, "unknown statementType %q", s.StatementType)
		}
	}
	for _, r := range rels {
		kind := r.partyKind
		if kind == "" {
			kind = ownership.Company
		}
		b.stub(ownership.Node{ID: r.subject, Kind: ownership.Company, Name: "BODS statement " + strings.TrimPrefix(r.subject, "bods:"), Source: r.source})
		b.stub(ownership.Node{ID: r.party, Kind: kind, Name: "BODS statement " + strings.TrimPrefix(r.party, "bods:"), Source: r.source})
		live := 0
		for _, in := range r.interests {
			if in.EndDate != "" {
				continue
			}
			live++
			e := ownership.Edge{From: r.party, To: r.subject, AsOf: firstNonEmpty(r.asOf, in.StartDate), Source: r.source}
			if in.DirectOrIndirect == "indirect" || in.InterestLevel == "indirect" {
				switch {
				case r.chain:
					st.skip("indirect interest (chain stated)")
					continue
				case r.v02:
					st.skip("indirect interest (BODS 0.2: chain not stated)")
					continue
				}
				e.Source += " (indirect)"
			}
			lo, hi, exact, err := shareOf(in)
			if err != nil {
				return ownership.Batch{}, st, lineError(file, r.line, "%s", err)
			}
			switch normInterest(in.Type) {
			case "shareholding", "":
				e.Relation = ownership.Owns
				if exact != nil {
					e.Pct = exact
				} else {
					e.PctMin, e.PctMax = lo, hi
				}
			case "votingrights":
				e.Relation, e.Role = ownership.Controls, ownership.VotingRights
				if exact != nil {
					lo, hi = exact, exact
				}
				e.PctMin, e.PctMax = lo, hi
			case "appointmentofboard", "boardmember", "boardchair":
				e.Relation, e.Role = ownership.Controls, ownership.BoardAppointment
			case "nominee":
				e.Relation, e.Role = ownership.Controls, ownership.OtherInfluence
				b.flagNominee(r.party)
			default:
				e.Relation, e.Role = ownership.Controls, ownership.OtherInfluence
			}
			if err := checkShare(e); err != nil {
				return ownership.Batch{}, st, lineError(file, r.line, "%s", err)
			}
			b.edge(e)
		}
		if len(r.interests) == 0 {
			b.edge(ownership.Edge{Relation: ownership.Owns, From: r.party, To: r.subject, AsOf: r.asOf, Source: r.source})
		} else if live == 0 {
			st.skip("all interests ended")
		}
	}
	out := b.batch()
	for i := range out.Stubs {
		if b.nominees[out.Stubs[i].ID] {
			out.Stubs[i].Nominee = true
		}
	}
	for i := range out.Nodes {
		if b.nominees[out.Nodes[i].ID] {
			out.Nodes[i].Nominee = true
		}
	}
	st.Nodes, st.Stubs, st.Edges = len(out.Nodes), len(out.Stubs), len(out.Edges)
	return out, st, nil
}

func (b *builder) flagNominee(id string) {
	if b.nominees == nil {
		b.nominees = map[string]bool{}
	}
	b.nominees[id] = true
}

func bodsNode(id string, person bool, d *bodsDetails, src string) ownership.Node {
	n := ownership.Node{ID: id, Kind: ownership.Company, Source: src, Name: cleanName(d.Name), FoundedOn: d.FoundingDate}
	if person {
		n.Kind, n.FoundedOn = ownership.Person, d.BirthDate
		for _, nm := range d.Names {
			full := cleanName(nm.FullName)
			if full == "" {
				full = cleanName(nm.GivenName + " " + nm.FamilyName)
			}
			if full != "" && (n.Name == "" || nm.Type == "individual" || nm.Type == "legal") {
				n.Name = full
				if nm.Type == "individual" || nm.Type == "legal" {
					break
				}
			}
		}
		if n.Name == "" {
			n.Name = "unnamed person (" + firstNonEmpty(d.PersonType, "unknown") + ")"
		}
		if len(d.Nationalities) > 0 {
			n.Jurisdiction = iso2(firstNonEmpty(d.Nationalities[0].Code, d.Nationalities[0].Name))
		}
	} else {
		if entityType(d.EntityType) == "arrangement" {
			n.Kind = ownership.Trust
		}
		if n.Name == "" {
			n.Name = "unnamed entity " + strings.TrimPrefix(id, "bods:")
		}
		for _, j := range []*bodsCode{d.Jurisdiction, d.Incorporated} {
			if j != nil && n.Jurisdiction == "" {
				n.Jurisdiction = iso2(firstNonEmpty(j.Code, j.Name))
			}
		}
	}
	for _, x := range d.Identifiers {
		if x.ID != "" {
			n.Identifiers = append(n.Identifiers, ownership.Identifier{Scheme: firstNonEmpty(x.Scheme, x.SchemeName), ID: x.ID})
		}
	}
	if len(d.Addresses) > 0 {
		n.Address = cleanName(d.Addresses[0].Address)
	}
	if len(n.FoundedOn) > 10 {
		n.FoundedOn = n.FoundedOn[:10]
	}
	return n
}

// entityType reads a 0.2 string or a 0.4 {type} object.
func entityType(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var o struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &o)
	return o.Type
}

// normInterest folds "voting-rights" and "votingRights" to "votingrights".
func normInterest(t string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(t))
}

// shareOf returns an interest's share as an exact figure or a band. Bands
// are closed intervals: an exclusive bound (a 0.4 exclusiveMinimum number,
// or a 0.2 minimum flagged exclusiveMinimum true) is carried as the bound
// itself, so "over 25% to 50%" is 25..50. It fails if an exclusive bound is
// neither a number nor a boolean.
func shareOf(in bodsInterest) (lo, hi, exact *float64, err error) {
	if in.Share == nil {
		return nil, nil, nil, nil
	}
	s := in.Share
	if s.Exact != nil {
		return nil, nil, s.Exact, nil
	}
	lo, hi = s.Minimum, s.Maximum
	if lo == nil {
		if lo, err = exclusiveBound("exclusiveMinimum", s.ExclusiveMin); err != nil {
			return nil, nil, nil, err
		}
	} else if _, err = exclusiveBound("exclusiveMinimum", s.ExclusiveMin); err != nil {
		return nil, nil, nil, err
	}
	if hi == nil {
		if hi, err = exclusiveBound("exclusiveMaximum", s.ExclusiveMax); err != nil {
			return nil, nil, nil, err
		}
	} else if _, err = exclusiveBound("exclusiveMaximum", s.ExclusiveMax); err != nil {
		return nil, nil, nil, err
	}
	if lo != nil && hi != nil && *lo == *hi {
		return nil, nil, lo, nil
	}
	return lo, hi, nil, nil
}

// exclusiveBound reads a 0.4 exclusive bound (a number, returned) or a 0.2
// exclusivity flag (a boolean or null, which gives no bound). It fails for
// any other JSON value.
func exclusiveBound(field string, raw json.RawMessage) (*float64, error) {
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || string(t) == "null" || string(t) == "true" || string(t) == "false" {
		return nil, nil
	}
	var v float64
	if err := json.Unmarshal(t, &v); err != nil {
		return nil, fmt.Errorf("share %s must be a number (BODS 0.4) or a boolean (BODS 0.2)", field)
	}
	return &v, nil
}

func checkShare(e ownership.Edge) error {
	for _, v := range []*float64{e.Pct, e.PctMin, e.PctMax} {
		if v != nil && (*v < 0 || *v > 100) {
			return fmt.Errorf("share %v is outside 0..100", *v)
		}
	}
	if e.PctMin != nil && e.PctMax != nil && *e.PctMin > *e.PctMax {
		return fmt.Errorf("share minimum %v is above maximum %v", *e.PctMin, *e.PctMax)
	}
	return nil
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s != "" {
			return s
		}
	}
	return ""
}

// jsonMessage returns a decoding error's message without Go type names.
func jsonMessage(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Sprintf("field %s must not be a JSON %s", te.Field, te.Value)
	}
	msg := err.Error()
	if i := strings.Index(msg, " of type "); i > 0 {
		msg = msg[:i]
	}
	return strings.TrimPrefix(msg, "json: ")
}
