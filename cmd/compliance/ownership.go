package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/ownership"
	"github.com/tradecompliance/compliance/graph/ownership/importer"
	"github.com/tradecompliance/compliance/graphdb"
)

const ownershipUsage = `usage: compliance ownership import [--format bods|csv|openoil] FILE...

Imports beneficial-ownership files into the graph database (NEO4J_URI):
BODS 0.2/0.4 statements (JSON array or JSON lines), the CSV edge format
(README, "Ownership import") or OpenOil ownership CSVs. Without --format
each file's format is detected from its content. Every file is parsed and
validated before anything is written; a bad record fails the command
naming the file and line. Re-importing a file changes nothing: nodes are
keyed by id and edges by owner, owned party and role. Prints what was read
and written as JSON.
`

// ownershipFileResult is what importing one file did.
type ownershipFileResult struct {
	File string `json:"file"`
	importer.Stats
}

// ownershipImportResult is the JSON the import prints.
type ownershipImportResult struct {
	Files      []ownershipFileResult `json:"files"`
	Written    graphdb.ImportStats   `json:"written"`
	DurationMS int64                 `json:"duration_ms"`
}

func ownershipCommand(ctx context.Context, cfg Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] != "import" {
		fmt.Fprint(stderr, ownershipUsage)
		if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
			return flag.ErrHelp
		}
		return fmt.Errorf("unknown ownership command %q", args[0])
	}
	fs := flag.NewFlagSet("ownership import", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, ownershipUsage) }
	format := fs.String("format", "", "bods, csv or openoil (default: detect per file)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("ownership import: no FILE given")
	}
	switch importer.Format(*format) {
	case "", importer.BODS, importer.CSV, importer.OpenOil:
	default:
		return fmt.Errorf("ownership import: --format %q must be bods, csv or openoil", *format)
	}
	if cfg.Neo4j.URI == "" {
		return errors.New("ownership import: NEO4J_URI is not set")
	}
	start := time.Now()
	res, batches, err := parseOwnershipFiles(fs.Args(), importer.Format(*format))
	if err != nil {
		return err
	}
	neo, err := graphdb.Open(ctx, cfg.Neo4j)
	if err != nil {
		return fmt.Errorf("neo4j at %s: %w", cfg.Neo4j.URI, err)
	}
	defer neo.Close(context.Background())
	if _, err := neo.Migrate(ctx); err != nil {
		return fmt.Errorf("migrate neo4j: %w", err)
	}
	w, err := importOwnership(ctx, neo, batches)
	res.Written = w
	if err != nil {
		return err
	}
	res.DurationMS = time.Since(start).Milliseconds()
	log.Info("ownership import done", "files", len(res.Files), "nodes", w.Nodes, "owns", w.Owns, "controls", w.Controls, "duration_ms", res.DurationMS)
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	return enc.Encode(res)
}

// parseOwnershipFiles reads and parses every file before anything is
// written. It fails on the first unreadable or bad file, naming it.
func parseOwnershipFiles(files []string, f importer.Format) (ownershipImportResult, []ownership.Batch, error) {
	var res ownershipImportResult
	var batches []ownership.Batch
	for _, name := range files {
		data, err := readLimited(name, importer.MaxFileSize)
		if err != nil {
			return res, nil, err
		}
		b, st, err := importer.Parse(name, data, f)
		if err != nil {
			return res, nil, errors.New(graph.AsError(err).Message)
		}
		res.Files = append(res.Files, ownershipFileResult{File: name, Stats: st})
		batches = append(batches, b)
	}
	return res, batches, nil
}

// importOwnership writes the batches as one, so that the whole import is
// validated (edges whose ends are nowhere) before anything is written; a
// later file may refer to parties of an earlier one.
func importOwnership(ctx context.Context, neo *graphdb.DB, batches []ownership.Batch) (graphdb.ImportStats, error) {
	var all ownership.Batch
	for _, b := range batches {
		all.Nodes = append(all.Nodes, b.Nodes...)
		all.Stubs = append(all.Stubs, b.Stubs...)
		all.Edges = append(all.Edges, b.Edges...)
	}
	st, err := neo.UpsertOwnership(ctx, all)
	if e := graph.AsError(err); e != nil && e.Code == graph.CodeInvalid {
		return st, errors.New(e.Message)
	}
	return st, err
}

// readLimited reads the file name, failing when it is larger than limit.
func readLimited(name string, limit int64) ([]byte, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, limit)
	}
	return data, nil
}
