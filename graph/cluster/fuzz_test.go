package cluster

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzParseImport: any input either parses into valid records or fails
// with an *ImportError naming the file; never a panic.
func FuzzParseImport(f *testing.F) {
	f.Add("x.csv", []byte("entity_name,severity,aliases\nDemo A,likely,A1|A2\n"))
	f.Add("x.jsonl", []byte(`{"entity_name":"Demo A","severity":"confirmed","aliases":["x y"]}`+"\n"))
	f.Add("x.csv", []byte("\"unterminated\n"))
	f.Add("x.jsonl", []byte("{\"entity_name\":1}\n"))
	f.Fuzz(func(t *testing.T, name string, data []byte) {
		recs, err := ParseImport(name, bytes.NewReader(data))
		if err != nil {
			var ie *ImportError
			if !errors.As(err, &ie) || ie.File != name {
				t.Fatalf("error %v is not an ImportError naming %q", err, name)
			}
			return
		}
		for _, r := range recs {
			if !ValidSlug(r.Slug) || !r.Severity.Valid() || ValidName("entity_name", r.EntityName) != nil {
				t.Fatalf("invalid record accepted: %+v", r)
			}
		}
	})
}

// FuzzNormalize: the normal form holds only lower-case letters and
// digits, is stable, and a name always matches itself.
func FuzzNormalize(f *testing.F) {
	for _, s := range []string{"Acme Oil & Gas, Ltd.", "ΟΔΥΣΣΕΥΣ", "İstanbul", "ǅemal", "--"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n := Normalize(s)
		if !utf8.ValidString(s) {
			return
		}
		for _, r := range n {
			if !(unicode.IsLetter(r) || unicode.IsDigit(r)) {
				t.Fatalf("Normalize(%q) = %q holds %q", s, n, r)
			}
		}
		if Normalize(n) != n {
			t.Fatalf("Normalize not stable on %q: %q then %q", s, n, Normalize(n))
		}
		if utf8.RuneCountInString(n) < MinCheckChars || ValidName("entity_name", s) != nil {
			return
		}
		idx := NewIndex(1, []Record{{ID: "1", Slug: "x", EntityName: s, Severity: Likely}})
		res, err := idx.Check(context.Background(), s, "")
		if err != nil || !res.Matched {
			t.Fatalf("a name does not match itself: %q: %+v %v", s, res, err)
		}
	})
}
