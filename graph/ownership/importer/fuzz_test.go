package importer

import (
	"testing"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
)

// checkParsed fails t unless a parse either failed with an invalid error
// naming the file or gave a valid batch whose edges join parsed parties.
func checkParsed(t *testing.T, b ownership.Batch, err error) {
	t.Helper()
	if err != nil {
		if e := graph.AsError(err); e.Code != graph.CodeInvalid || e.Field != "file" {
			t.Fatalf("error %v is not an invalid file error", err)
		}
		return
	}
	if err := b.Validate(); err != nil {
		t.Fatalf("parsed batch does not validate: %v", err)
	}
	ids := map[string]bool{}
	for _, n := range append(b.Nodes, b.Stubs...) {
		ids[n.ID] = true
	}
	for _, e := range b.Edges {
		if !ids[e.From] || !ids[e.To] {
			t.Fatalf("edge %+v joins parties absent from the batch", e)
		}
	}
}

func FuzzParseBODS(f *testing.F) {
	f.Add([]byte(`{"statementID":"1","statementType":"personStatement","names":[{"fullName":"A"}]}
{"statementID":"2","statementType":"ownershipOrControlStatement","subject":{"describedByEntityStatement":"3"},"interestedParty":{"describedByPersonStatement":"1"},"interests":[{"type":"shareholding","share":{"minimum":25,"maximum":50}}]}`))
	f.Add([]byte(`[{"recordId":"a","recordType":"entity","recordDetails":{"name":"A","entityType":{"type":"arrangement"}}},{"recordId":"r","recordType":"relationship","recordDetails":{"subject":"a","interestedParty":"b","interests":[{"type":"votingRights","share":{"exact":60}}]}}]`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, _, err := Parse("f.json", data, BODS)
		checkParsed(t, b, err)
	})
}

func FuzzParseCSV(f *testing.F) {
	f.Add([]byte("owner_id,owner_name,owned_id,owned_name,pct\na,A,b,B,60\n"))
	f.Add([]byte("owner_id,owner_name,owner_kind,owned_id,owned_name,relation,role,pct_min,pct_max\np,P,person,b,B,controls,voting_rights,25,50\n"))
	f.Add([]byte("owner_id,owned_id\n\"a,b\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, _, err := Parse("f.csv", data, CSV)
		checkParsed(t, b, err)
	})
}

func FuzzParseOpenOil(f *testing.F) {
	f.Add([]byte("company,immediate,parent,ultimate,jurisdiction,oc_id,source_date\nA Ltd,100,B plc,100,United Kingdom,gb/1,06.07.13 00:00\n"))
	f.Add([]byte("timestamp,parent,company,immediate,end_date\n,P,C,,\n,P,P,5,\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		b, _, err := Parse("f.csv", data, OpenOil)
		checkParsed(t, b, err)
	})
}
