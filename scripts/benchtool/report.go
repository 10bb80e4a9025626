package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
	"unicode/utf8"
)

// Goal says how a figure is judged against its target.
type Goal string

const (
	AtMost  Goal = "<=" // figure must not exceed the target
	Below   Goal = "<"  // figure must stay under the target
	AtLeast Goal = ">=" // figure must reach the target
	Exactly Goal = "="  // figure must equal the target
	Info    Goal = ""   // no target: reported for context
)

// Result is one row of the table.
type Result struct {
	Section  string  `json:"section"`  // "A1 start-up", ...
	Name     string  `json:"name"`     // what was measured
	Value    float64 `json:"value"`    // the figure, in Unit
	Unit     string  `json:"unit"`     // "s", "ms", "MB", "req/s", ...
	Baseline string  `json:"baseline"` // the same-run baseline, formatted
	Goal     Goal    `json:"goal"`
	Target   float64 `json:"target"` // in Unit
	Note     string  `json:"note"`
}

// verdict returns PASS, FAIL (with the margin) or "info".
func (r Result) verdict() string {
	if r.Goal == Info {
		return "info"
	}
	pass := false
	switch r.Goal {
	case AtMost:
		pass = r.Value <= r.Target
	case Below:
		pass = r.Value < r.Target
	case AtLeast:
		pass = r.Value >= r.Target
	case Exactly:
		pass = r.Value == r.Target
	}
	if pass {
		return "PASS"
	}
	if r.Target == 0 || r.Goal == Exactly {
		return "FAIL"
	}
	miss := math.Abs(r.Value/r.Target-1) * 100
	if r.Goal == AtLeast {
		return fmt.Sprintf("FAIL (%.0f%% short)", miss)
	}
	return fmt.Sprintf("FAIL (%.0f%% over)", miss)
}

func (r Result) ratio() string {
	if r.Goal == Info || r.Goal == Exactly || r.Target == 0 {
		return ""
	}
	return fmt.Sprintf("%.2f", r.Value/r.Target)
}

func (r Result) target() string {
	if r.Goal == Info {
		return ""
	}
	return string(r.Goal) + " " + fmtNum(r.Target, r.Unit)
}

// fmtNum formats a figure with a precision that suits its size.
func fmtNum(v float64, unit string) string {
	var s string
	switch {
	case unit == "" || unit == "errors" || unit == "requests" || unit == "keys" || unit == "entries":
		s = groupThousands(fmt.Sprintf("%.0f", v))
	case unit == "rows" && v == math.Trunc(v):
		s = groupThousands(fmt.Sprintf("%.0f", v))
	case unit == "x" || unit == "%":
		s = fmt.Sprintf("%.2f", v)
		if unit == "%" {
			s = fmt.Sprintf("%.1f", v)
		}
	case math.Abs(v) >= 1000:
		s = groupThousands(fmt.Sprintf("%.0f", v))
	case math.Abs(v) >= 100:
		s = fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		s = fmt.Sprintf("%.1f", v)
	default:
		s = fmt.Sprintf("%.2f", v)
	}
	if unit == "" {
		return s
	}
	if unit == "%" {
		return s + "%"
	}
	if unit == "x" {
		return s + "x"
	}
	return s + " " + unit
}

func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// appendResults adds results to the file at path.
func appendResults(path string, rs ...Result) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	for _, r := range rs {
		if err := enc.Encode(r); err != nil {
			f.Close()
			return err
		}
	}
	return f.Close()
}

func cmdReport(args []string) error {
	fs := flag.NewFlagSet("report", flag.ContinueOnError)
	in := fs.String("in", "", "results file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	f, err := os.Open(*in)
	if err != nil {
		return err
	}
	defer f.Close()
	var rs []Result
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var r Result
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return fmt.Errorf("%s: %w", *in, err)
		}
		rs = append(rs, r)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	failed := printTable(os.Stdout, rs)
	if failed > 0 {
		fmt.Printf("\n%d target(s) missed.\n", failed)
	} else if len(rs) > 0 {
		fmt.Printf("\nEvery target measured here was met.\n")
	}
	return nil
}

// printTable writes the results grouped by section, in the order they
// appear, and returns how many targets were missed.
func printTable(w io.Writer, rs []Result) int {
	head := []string{"Section", "Measure", "Figure", "Baseline (same run)", "Target", "Ratio", "Verdict"}
	var order []string
	bySection := map[string][]Result{}
	for _, r := range rs {
		if _, ok := bySection[r.Section]; !ok {
			order = append(order, r.Section)
		}
		bySection[r.Section] = append(bySection[r.Section], r)
	}
	sortSections(order)
	var rows [][]string
	var notes []string
	failed := 0
	for _, s := range order {
		for i, r := range bySection[s] {
			sec := ""
			if i == 0 {
				sec = s
			}
			v := r.verdict()
			if strings.HasPrefix(v, "FAIL") {
				failed++
			}
			rows = append(rows, []string{sec, r.Name, fmtNum(r.Value, r.Unit), r.Baseline, r.target(), r.ratio(), v})
			if r.Note != "" {
				notes = append(notes, fmt.Sprintf("[%s] %s: %s", strings.Fields(s)[0], r.Name, r.Note))
			}
		}
		rows = append(rows, nil) // a rule between sections
	}
	widths := make([]int, len(head))
	for i, h := range head {
		widths[i] = utf8.RuneCountInString(h)
	}
	for _, row := range rows {
		for i, c := range row {
			widths[i] = max(widths[i], utf8.RuneCountInString(c))
		}
	}
	line := func(cells []string) {
		var b strings.Builder
		for i, c := range cells {
			if i > 0 {
				b.WriteString(" | ")
			}
			b.WriteString(c)
			if i < len(cells)-1 {
				b.WriteString(strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c)))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	rule := func() {
		parts := make([]string, len(widths))
		for i, n := range widths {
			parts[i] = strings.Repeat("-", n)
		}
		fmt.Fprintln(w, strings.Join(parts, "-+-"))
	}
	line(head)
	rule()
	for i, row := range rows {
		if row == nil {
			if i < len(rows)-1 {
				rule()
			}
			continue
		}
		line(row)
	}
	if len(notes) > 0 {
		fmt.Fprintln(w, "\nNotes:")
		for _, n := range notes {
			fmt.Fprintln(w, "  "+n)
		}
	}
	return failed
}

// sortSections orders sections by their label ("A1 ...", "B3 ..."),
// keeping the first-seen order otherwise.
func sortSections(s []string) {
	key := func(x string) string { return strings.Fields(x)[0] }
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && key(s[j]) < key(s[j-1]); j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}
