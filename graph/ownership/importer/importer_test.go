package importer

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/sanctions/sanctionstest"
)

// ownershipData returns the shared ownership data directory or skips t.
func ownershipData(t testing.TB) string {
	t.Helper()
	dir, err := sanctionstest.Dir()
	if errors.Is(err, sanctionstest.ErrNoData) || err != nil {
		t.Skipf("skipping: %v", err)
	}
	return filepath.Join(dir, "ownership")
}

func parseFile(t testing.TB, path string) (ownership.Batch, Stats) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b, st, err := Parse(path, data, "")
	if err != nil {
		t.Fatalf("Parse(%s) = %v", path, err)
	}
	return b, st
}

// shares returns "id share status" for the owners and unidentified top
// entities of root.
func shares(res ownership.Result) []string {
	var out []string
	for _, o := range append(res.Owners, res.Unidentified...) {
		out = append(out, o.Node.ID+" "+o.Share.String()+" "+o.Status)
	}
	return out
}

func TestCSV(t *testing.T) {
	const good = `owner_id,owner_name,owner_kind,owner_jurisdiction,owned_id,owned_name,owned_kind,owned_jurisdiction,relation,pct,pct_min,pct_max,role,as_of,source
p1,Ana Lima,person,Brazil,a,Alpha Ltd,company,GB,owns,60,,,,2024-01-31,registry
a,,,,r,Root Co,company,NL,owns,50,,,,2024,registry
p2,Bo Chen,person,,r,,,,owns,,25,50,,,registry
p3,Cy Dee,person,,r,,,,controls,,,,board_appointment,,filing
t1,Dee Trust,trust,,r,,,,owns,,,,,,filing
`
	b, st, err := Parse("edges.csv", []byte(good), "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Format != CSV || st.Records != 5 || st.Nodes != 6 || st.Edges != 5 {
		t.Errorf("stats = %+v, want csv, 5 records, 6 nodes, 5 edges", st)
	}
	if n := b.Nodes[0]; n.Jurisdiction != "BR" || n.Kind != ownership.Person {
		t.Errorf("first node = %+v, want a person in BR", n)
	}
	res := ownership.Compute(ownership.UpstreamOf(b, "r", 3), "r", ownership.Options{})
	want := []string{"p2 25-50% beneficial_owner", "p1 30% beneficial_owner", "t1 unknown possible"}
	if got := shares(res); !reflect.DeepEqual(got, want) {
		t.Errorf("shares = %q, want %q", got, want)
	}
	if len(res.ControlOnly) != 1 || res.ControlOnly[0].Node.ID != "p3" {
		t.Errorf("control only = %+v, want p3", res.ControlOnly)
	}

	header := strings.SplitN(good, "\n", 2)[0] + "\n"
	bad := []struct {
		name, body, want string
	}{
		{"unknown column", "owner_id,owned_id,percent\na,b,1\n", "edges.csv line 1: unknown column \"percent\""},
		{"missing owned_id", "owner_id,owner_name\na,A\n", "edges.csv line 1: missing column \"owned_id\""},
		{"pct not a number", header + "a,A,,,b,B,,,owns,sixty,,,,,\n", "edges.csv line 2: pct must be a number"},
		{"pct over 100", header + "a,A,,,b,B,,,owns,101,,,,,\n", "edges.csv line 2: pct must be between 0 and 100"},
		{"band reversed", header + "a,A,,,b,B,,,owns,,50,25,,,\n", "edges.csv line 2: pct_min is above pct_max"},
		{"pct and band", header + "a,A,,,b,B,,,owns,30,25,,,,\n", "edges.csv line 2: give pct or pct_min/pct_max"},
		{"bad kind", header + "a,A,robot,,b,B,,,owns,1,,,,,\n", "edges.csv line 2: owner_kind \"robot\""},
		{"bad role", header + "a,A,,,b,B,,,controls,,,,boss,,\n", "edges.csv line 2: role \"boss\""},
		{"role on owns", header + "a,A,,,b,B,,,owns,1,,,voting_rights,,\n", "edges.csv line 2: role is only for relation controls"},
		{"bad relation", header + "a,A,,,b,B,,,holds,1,,,,,\n", "edges.csv line 2: relation \"holds\""},
		{"bad country", header + "a,A,,Atlantis,b,B,,,owns,1,,,,,\n", "edges.csv line 2: owner_jurisdiction \"Atlantis\""},
		{"bad date", header + "a,A,,,b,B,,,owns,1,,,,2024-13-01,\n", "edges.csv line 2: as_of \"2024-13-01\""},
		{"self", header + "a,A,,,a,A,,,owns,1,,,,,\n", "edges.csv line 2: owner_id and owned_id are the same"},
		{"unnamed id", header + "a,A,,,b,B,,,owns,1,,,,,\nc,,,,b,,,,owns,1,,,,,\n", "edges.csv line 3: owner_name is empty for \"c\""},
		{"kind contradiction", header + "a,A,person,,b,B,,,owns,1,,,,,\na,A,company,,c,C,,,owns,1,,,,,\n", "edges.csv line 3: owner_kind company contradicts"},
		{"no rows", header, "edges.csv line 2: no rows after the header"},
		{"bad quote", header + "a,\"A,,,b\n", "edges.csv line 2:"},
	}
	for _, tc := range bad {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse("edges.csv", []byte(tc.body), CSV)
			e := graph.AsError(err)
			if e == nil || e.Code != graph.CodeInvalid || e.Field != "file" || !strings.HasPrefix(e.Message, tc.want) {
				t.Errorf("Parse = %v, want invalid file error starting %q", err, tc.want)
			}
		})
	}
}

func TestDetect(t *testing.T) {
	tests := []struct {
		name string
		data string
		want Format
	}{
		{"bods array", " [ {} ]", BODS},
		{"bods lines", "{\"statementID\":\"1\"}\n", BODS},
		{"csv", "owner_id,owned_id\n", CSV},
		{"openoil", "company,immediate,parent\n", OpenOil},
		{"unknown", "a,b,c\n", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Detect([]byte(tc.data))
			if got != tc.want || (tc.want == "") != (err != nil) {
				t.Errorf("Detect(%q) = %q, %v; want %q", tc.data, got, err, tc.want)
			}
		})
	}
}

func TestBODSErrors(t *testing.T) {
	tests := []struct {
		name, body, want string
	}{
		{"malformed line", "{\"statementID\":\"1\",\"statementType\":\"personStatement\"}\n{oops\n", "x.json line 2: malformed statement"},
		{"malformed array element", "[\n{\"recordId\":\"a\",\"recordType\":\"entity\",\"recordDetails\":{\"name\":\"A\"}},\n{\"recordId\": 5}\n]", "x.json line 3: malformed statement"},
		{"no type", "{\"statementID\":\"1\"}\n", "x.json line 1: statement has neither statementType"},
		{"unknown type", "{\"statementID\":\"1\",\"statementType\":\"weird\"}\n", "x.json line 1: unknown statementType"},
		{"share over 100", `{"statementID":"1","statementType":"ownershipOrControlStatement","subject":{"describedByEntityStatement":"2"},"interestedParty":{"describedByPersonStatement":"3"},"interests":[{"type":"shareholding","share":{"exact":150}}]}`, "x.json line 1: share 150 is outside 0..100"},
		{"empty", "  \n", "x.json line 1: no BODS statements"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := Parse("x.json", []byte(tc.body), BODS)
			e := graph.AsError(err)
			if e == nil || e.Code != graph.CodeInvalid || !strings.HasPrefix(e.Message, tc.want) {
				t.Errorf("Parse = %v, want invalid starting %q", err, tc.want)
			}
		})
	}
}

// TestBODS04Examples checks the official BODS 0.4 examples against
// figures computed by hand from each file.
func TestBODS04Examples(t *testing.T) {
	dir := filepath.Join(ownershipData(t), "bods", "bods_0.4_examples")
	tests := []struct {
		file, root  string
		want        []string
		controlOnly []string
		nominee     string
	}{
		// Company B owns 60% of Company A; Person 1 -> Company B is a
		// component with no share stated (unknown); the declared indirect
		// 30% is not an edge. So Person 1 holds 0..60% of A.
		{file: "indirect-ownership.json", root: "bods:ad3f6c2fcc9e", want: []string{"bods:c25d4d612c2c unknown possible"}},
		// Joint shareholding (an arrangement) owns 100% of CHRINON LTD;
		// two persons own 50% each of the arrangement.
		{file: "joint-ownership.json", root: "", want: []string{"50% beneficial_owner", "50% beneficial_owner"}},
		// The nominator controls through the nomination's board seat; the
		// nominee is flagged.
		{file: "nomination.json", root: "", want: nil, controlOnly: []string{"Silvia Teixeira Perez", "Vanessa Rivero"}, nominee: "Vanessa Rivero"},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			b, _ := parseFile(t, filepath.Join(dir, tc.file))
			root := tc.root
			if root == "" { // the one entity nobody else is owned by
				owned := map[string]bool{}
				for _, e := range b.Edges {
					owned[e.From] = true
				}
				for _, n := range b.Nodes {
					if n.Kind == ownership.Company && !owned[n.ID] {
						root = n.ID
					}
				}
			}
			res := ownership.Compute(ownership.UpstreamOf(b, root, 3), root, ownership.Options{})
			got := shares(res)
			if tc.root == "" {
				for i := range got {
					got[i] = got[i][strings.Index(got[i], " ")+1:]
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("shares of %s = %q, want %q", root, got, tc.want)
			}
			var co []string
			for _, c := range res.ControlOnly {
				co = append(co, c.Node.Name)
			}
			slices.Sort(co)
			if !reflect.DeepEqual(co, tc.controlOnly) {
				t.Errorf("control only = %q, want %q", co, tc.controlOnly)
			}
			if tc.nominee != "" {
				found := false
				for _, n := range b.Nodes {
					found = found || (n.Name == tc.nominee && n.Nominee)
				}
				if !found {
					t.Errorf("%s is not flagged nominee", tc.nominee)
				}
			}
		})
	}
}

// TestBODS02Register checks the OpenOwnership register sample (BODS 0.2,
// Danish CVR): Thomas Sandø Iversen's person statement replaces an earlier
// one and owns 50% of entity 12618949488003013987 (shareholding 50.0 and
// voting rights 50.0); the first statement's interests ended on 2023-03-30.
func TestBODS02Register(t *testing.T) {
	b, st := parseFile(t, filepath.Join(ownershipData(t), "bods", "oo_register_bods_sample_1.jsonl"))
	if st.Records != 10 || st.Skipped["all interests ended"] != 3 {
		t.Errorf("stats = %+v, want 10 records, 3 with every interest ended", st)
	}
	root := "bods:12618949488003013987"
	res := ownership.Compute(ownership.UpstreamOf(b, root, 3), root, ownership.Options{})
	if got, want := shares(res), []string{"bods:11262152698769124205 50% beneficial_owner"}; !reflect.DeepEqual(got, want) {
		t.Errorf("shares = %q, want %q", got, want)
	}
	if res.Owners[0].Node.Name != "Thomas Sandø Iversen" || res.Owners[0].Node.Jurisdiction != "DK" {
		t.Errorf("owner = %+v, want Thomas Sandø Iversen, DK", res.Owners[0].Node)
	}
	if res.Owners[0].Paths[0].Hops[0].AsOf != "2023-03-17" && res.Owners[0].Paths[0].Hops[0].Source != "bods: DK Centrale Virksomhedsregister" {
		t.Errorf("evidence = %+v", res.Owners[0].Paths[0].Hops[0])
	}
	for _, e := range b.Edges {
		if strings.Contains(e.Key, "2973371654238731806") {
			t.Errorf("ended interest imported: %+v", e)
		}
	}
}

// TestOpenOilBP checks hand-computed chains of the BP group file.
func TestOpenOilBP(t *testing.T) {
	b, st := parseFile(t, filepath.Join(ownershipData(t), "openoil", "BP_ownership_20140822.csv"))
	if st.Records != 1164 || st.Edges != 1163 || st.Skipped["no parent"] != 1 {
		t.Errorf("stats = %+v, want 1164 records, 1163 edges, 1 without parent", st)
	}
	// Rows 13, 544, 354, 399: BP-Japan Oil Development Company Limited
	// holds 66.67% of Abu Dhabi Marine Areas Limited; BP Exploration
	// Company Limited 50% of BP-Japan; BP International Limited 100% of BP
	// Exploration; BP p l c 100% of BP International. BP p.l.c.:
	// 66.67 x 0.5 x 1 x 1 = 33.335%.
	root := "openoil:abu dhabi marine areas limited"
	res := ownership.Compute(ownership.UpstreamOf(b, root, 4), root, ownership.Options{})
	if got, want := shares(res), []string{"openoil:bp p l c 33.335% beneficial_owner"}; !reflect.DeepEqual(got, want) {
		t.Errorf("shares = %q, want %q", got, want)
	}
	hops := res.Unidentified[0].Paths[0].Hops
	var chain []string
	for _, h := range hops {
		chain = append(chain, h.Share.String())
	}
	if want := []string{"100%", "100%", "50%", "66.67%"}; !reflect.DeepEqual(chain, want) {
		t.Errorf("evidence chain = %q, want %q", chain, want)
	}
	// With 3 hops the walk stops at BP International Limited, which has an
	// owner: truncated.
	res3 := ownership.Compute(ownership.UpstreamOf(b, root, 3), root, ownership.Options{})
	if !res3.Truncated || len(res3.Unidentified) != 0 {
		t.Errorf("3 hops: truncated %v unidentified %v, want truncated and none", res3.Truncated, shares(res3))
	}
}

// TestOpenOilNigeria checks hand-computed figures of the Nigerian file,
// including a diamond and an over-allocated entity.
func TestOpenOilNigeria(t *testing.T) {
	b, st := parseFile(t, filepath.Join(ownershipData(t), "openoil", "Nigeria_ownership_20140711.csv"))
	if st.Records != 60 || st.Edges != 60 {
		t.Errorf("stats = %+v, want 60 records and edges", st)
	}
	tests := []struct {
		root string
		want []string
	}{
		// Rows 18+9: Shell Gas BV 25.6% <- Royal Dutch Shell Plc 100%.
		// Rows 16+21+22+12: Total LNG Nigeria 15% <- Total Gaz & Electricite
		// 100% <- Elf Aquitaine 100% <- Total SA 100% (4 hops).
		// Rows 17+5: Eni International BV 10.4% <- Eni SpA 100%.
		{root: "openoil:nigeria lng limited", want: []string{
			"openoil:nigerian national petroleum corporation (nnpc) 49% beneficial_owner",
			"openoil:royal dutch shell plc 25.6% beneficial_owner",
			"openoil:total sa 15% below_threshold",
			"openoil:eni spa 10.4% below_threshold",
		}},
		// SPDC: NNPC 55% (row 45); Shell International 30% <- RDS (46, 9);
		// TEPNL 10% (47) is owned 100% by Total SA directly (13) and
		// through Total E&P Holdings SAS (20, 11): a diamond whose two paths
		// give Total SA 10 + 10 = 20%, which the rows state (TEPNL is 200%
		// allocated); Nigerian Agip 5% <- Eni SpA 100% (48, 6).
		{root: "openoil:shell petroleum development company of nigeria limited (spdc)", want: []string{
			"openoil:nigerian national petroleum corporation (nnpc) 55% beneficial_owner",
			"openoil:royal dutch shell plc 30% beneficial_owner",
			"openoil:total sa 20% below_threshold",
			"openoil:eni spa 5% below_threshold",
		}},
	}
	for _, tc := range tests {
		t.Run(tc.root, func(t *testing.T) {
			res := ownership.Compute(ownership.UpstreamOf(b, tc.root, 4), tc.root, ownership.Options{})
			if got := shares(res); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("shares = %q, want %q", got, tc.want)
			}
		})
	}
	res := ownership.Compute(ownership.UpstreamOf(b, tests[1].root, 4), tests[1].root, ownership.Options{})
	if !slices.Contains(res.Caveats, ownership.CaveatOverallocated) {
		t.Errorf("caveats %q lack the over-allocation caveat", res.Caveats)
	}
}

// bods02 returns a BODS 0.2 file: entity "e", person "p" and one
// ownership statement "o" of p in e with the given interests JSON.
func bods02(interests string) string {
	return `{"statementID":"e","statementType":"entityStatement","name":"E Ltd"}
{"statementID":"p","statementType":"personStatement","names":[{"fullName":"P One"}]}
{"statementID":"o","statementType":"ownershipOrControlStatement","subject":{"describedByEntityStatement":"e"},"interestedParty":{"describedByPersonStatement":"p"},"interests":` + interests + `}
`
}

// edgeShares returns "from->to relation pct|min..max" for every edge.
func edgeShares(b ownership.Batch) []string {
	f := func(v *float64) string {
		if v == nil {
			return "_"
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	var out []string
	for _, e := range b.Edges {
		s := e.From + "->" + e.To + " " + string(e.Relation) + " "
		if e.Pct != nil {
			s += f(e.Pct)
		} else {
			s += f(e.PctMin) + ".." + f(e.PctMax)
		}
		out = append(out, s)
	}
	return out
}

func TestBODSShareBounds(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
		err        string
	}{
		{"0.2 exclusive minimum flag (UK PSC band)", bods02(`[{"type":"shareholding","share":{"minimum":25,"maximum":50,"exclusiveMinimum":true}}]`),
			[]string{"bods:p->bods:e OWNS 25..50"}, ""},
		{"0.2 both flags false", bods02(`[{"type":"shareholding","share":{"minimum":50,"maximum":75,"exclusiveMinimum":false,"exclusiveMaximum":false}}]`),
			[]string{"bods:p->bods:e OWNS 50..75"}, ""},
		{"0.2 exclusive maximum flag", bods02(`[{"type":"shareholding","share":{"minimum":75,"maximum":100,"exclusiveMinimum":true,"exclusiveMaximum":true}}]`),
			[]string{"bods:p->bods:e OWNS 75..100"}, ""},
		{"0.4 numeric bounds", `[{"recordId":"e","recordType":"entity","recordDetails":{"name":"E"}},
{"recordId":"p","recordType":"person","recordDetails":{"names":[{"fullName":"P"}]}},
{"recordId":"r","recordType":"relationship","recordDetails":{"subject":"e","interestedParty":"p","interests":[{"type":"shareholding","share":{"exclusiveMinimum":25,"exclusiveMaximum":50}}]}}]`,
			[]string{"bods:p->bods:e OWNS 25..50"}, ""},
		{"bound a string", bods02(`[{"type":"shareholding","share":{"minimum":25,"exclusiveMinimum":"yes"}}]`),
			nil, "x.json line 3: share exclusiveMinimum must be a number (BODS 0.4) or a boolean (BODS 0.2)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _, err := Parse("x.json", []byte(tc.body), BODS)
			if tc.err != "" {
				if e := graph.AsError(err); e == nil || e.Code != graph.CodeInvalid || e.Message != tc.err {
					t.Fatalf("Parse = %v, want invalid %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Parse = %v", err)
			}
			if got := edgeShares(b); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("edges = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBODSClosedAndReplaced(t *testing.T) {
	const nodes04 = `{"recordId":"e","recordType":"entity","recordDetails":{"name":"E"}}
{"recordId":"p","recordType":"person","recordDetails":{"names":[{"fullName":"P"}]}}
`
	rel04 := func(status, date string, pct int) string {
		return `{"statementId":"s` + date + status + `","recordId":"r","recordType":"relationship","recordStatus":"` + status + `","statementDate":"` + date +
			`","recordDetails":{"subject":"e","interestedParty":"p","interests":[{"type":"shareholding","share":{"exact":` + strconv.Itoa(pct) + `}}]}}` + "\n"
	}
	const nodes02 = `{"statementID":"e","statementType":"entityStatement","name":"E Ltd"}
{"statementID":"p","statementType":"personStatement","names":[{"fullName":"P One"}]}
`
	occ02 := func(id, replaces string, pct int) string {
		r := ""
		if replaces != "" {
			r = `,"replacesStatements":["` + replaces + `"]`
		}
		return `{"statementID":"` + id + `","statementType":"ownershipOrControlStatement"` + r +
			`,"subject":{"describedByEntityStatement":"e"},"interestedParty":{"describedByPersonStatement":"p"},"interests":[{"type":"shareholding","share":{"exact":` + strconv.Itoa(pct) + `}}]}` + "\n"
	}
	tests := []struct {
		name, body string
		want       []string
	}{
		{"0.4 new then closed", nodes04 + rel04("new", "2024-01-01", 60) + rel04("closed", "2024-06-01", 60), nil},
		{"0.4 closed then new later", nodes04 + rel04("closed", "2024-01-01", 60) + rel04("new", "2024-06-01", 40), []string{"bods:p->bods:e OWNS 40"}},
		{"0.4 closed listed first but dated later", nodes04 + rel04("closed", "2024-06-01", 60) + rel04("new", "2024-01-01", 60), nil},
		{"0.4 updated share", nodes04 + rel04("new", "2024-01-01", 60) + rel04("updated", "2024-03-01", 75), []string{"bods:p->bods:e OWNS 75"}},
		{"0.4 undated: file order", nodes04 + rel04("new", "", 60) + rel04("closed", "", 60), nil},
		{"0.2 replaced statement", nodes02 + occ02("o1", "", 60) + occ02("o2", "o1", 30), []string{"bods:p->bods:e OWNS 30"}},
		{"0.2 replacement listed first", nodes02 + occ02("o2", "o1", 30) + occ02("o1", "", 60), []string{"bods:p->bods:e OWNS 30"}},
		{"0.2 self-replacing", nodes02 + occ02("o1", "o1", 60), []string{"bods:p->bods:e OWNS 60"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, _, err := Parse("x.json", []byte(tc.body), BODS)
			if err != nil {
				t.Fatalf("Parse = %v", err)
			}
			if got := edgeShares(b); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("edges = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestBODSIndirect(t *testing.T) {
	const nodes04 = `{"recordId":"e","recordType":"entity","recordDetails":{"name":"E"}}
{"recordId":"m","recordType":"entity","recordDetails":{"name":"M"}}
{"recordId":"p","recordType":"person","recordDetails":{"names":[{"fullName":"P"}]}}
`
	const direct04 = `{"recordId":"r1","recordType":"relationship","recordDetails":{"subject":"e","interestedParty":"m","interests":[{"type":"shareholding","directOrIndirect":"direct","share":{"exact":60}}]}}
`
	indirect04 := func(components string) string {
		return `{"recordId":"r2","recordType":"relationship","recordDetails":{"subject":"e","interestedParty":"p","interests":[{"type":"shareholding","directOrIndirect":"indirect","share":{"exact":30}}]` + components + `}}` + "\n"
	}
	occ02 := func(extra string) string {
		return bods02(`[{"type":"shareholding","interestLevel":"indirect","share":{"exact":30}}]`+extra) + "\n"
	}
	tests := []struct {
		name, body string
		want       []string
		source     string // of the p -> e edge, if any
		skip       string
	}{
		{"0.4 chain stated", nodes04 + direct04 + indirect04(`,"componentRecords":["r1"]`),
			[]string{"bods:m->bods:e OWNS 60"}, "", "indirect interest (chain stated)"},
		{"0.4 chain not stated", nodes04 + indirect04(""),
			[]string{"bods:p->bods:e OWNS 30"}, "bods (indirect)", ""},
		{"0.4 empty componentRecords", nodes04 + indirect04(`,"componentRecords":[]`),
			[]string{"bods:p->bods:e OWNS 30"}, "bods (indirect)", ""},
		{"0.2 cannot tell", occ02(""), nil, "", "indirect interest (BODS 0.2: chain not stated)"},
		{"0.3 chain stated", occ02(`,"componentStatementIDs":["x"]`), nil, "", "indirect interest (chain stated)"},
		{"0.2 direct", bods02(`[{"type":"shareholding","interestLevel":"direct","share":{"exact":30}}]`),
			[]string{"bods:p->bods:e OWNS 30"}, "bods", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, st, err := Parse("x.json", []byte(tc.body), BODS)
			if err != nil {
				t.Fatalf("Parse = %v", err)
			}
			if got := edgeShares(b); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("edges = %q, want %q", got, tc.want)
			}
			for _, e := range b.Edges {
				if e.From == "bods:p" && e.Source != tc.source {
					t.Errorf("source = %q, want %q", e.Source, tc.source)
				}
			}
			if tc.skip != "" && st.Skipped[tc.skip] != 1 {
				t.Errorf("skipped = %v, want one %q", st.Skipped, tc.skip)
			}
		})
	}
}
