package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"time"

	"github.com/tradecompliance/compliance/graph/cluster"
	"github.com/tradecompliance/compliance/relational"
	"github.com/tradecompliance/compliance/rest"
)

const submissionsUsage = `usage:
  compliance submissions list [--status pending|accepted|rejected|duplicate]
      print the submissions, oldest first (never the submitter's email)
  compliance submissions triage ID --status accepted|rejected|duplicate [--link BLOCKLIST_ID] [--note TEXT]
      move a pending submission (ID with or without sub_): accepted makes a confirmed blocklist
      record attributed to CLUSTER_INVESTIGATOR for the submitted name and country (or raises
      the investigator's record of the same normalized name and country to confirmed; imported
      records are never changed); duplicate links to --link or to the one record matching the
      name or an alias (the submitted country's first); then mirrors the registry into the graph
`

// submissionsCommand runs `compliance submissions list|triage`.
func submissionsCommand(ctx context.Context, cfg Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, submissionsUsage)
		return flag.ErrHelp
	}
	fs := flag.NewFlagSet("submissions "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, submissionsUsage) }
	status := fs.String("status", "", "list: only this triage status; triage: accepted, rejected or duplicate")
	link := fs.String("link", "", "triage duplicate: the blocklist record's id")
	note := fs.String("note", "", "triage: an operator note (not shown to the submitter)")
	pos, err := parseInterspersed(fs, args[1:]) // flags may come after the id
	if err != nil {
		return err
	}
	db, err := relational.Open(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return err
	}
	defer db.Close()
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	switch args[0] {
	case "list":
		subs, err := db.ListSubmissions(ctx, *status)
		if err != nil {
			return err
		}
		views := make([]rest.SubmissionView, len(subs))
		for i, s := range subs {
			views[i] = rest.ViewSubmission(s)
		}
		return enc.Encode(views)
	case "triage":
		if len(pos) != 1 || *status == "" {
			fmt.Fprint(stderr, submissionsUsage)
			return errors.New("submissions triage needs one ID and --status")
		}
		id, err := cluster.ParseSubmissionID(pos[0])
		if err != nil {
			return err
		}
		if *link != "" && *status != cluster.StatusDuplicate {
			return errors.New("--link applies to --status duplicate only")
		}
		sub, err := db.TriageSubmission(ctx, id, cluster.Triage{Status: *status, Link: *link, Note: *note, By: cfg.ClusterInvestigator}, time.Now())
		if err != nil {
			return err
		}
		log.Info("submission triaged", "request_id", sub.PublicID(), "status", sub.Status)
		if err := enc.Encode(rest.ViewSubmission(sub)); err != nil {
			return err
		}
		if sub.Status != cluster.StatusAccepted {
			return nil
		}
		_, err = mirrorClusterGraph(ctx, cfg, log, db)
		return err
	default:
		fmt.Fprint(stderr, submissionsUsage)
		return fmt.Errorf("unknown submissions command %q", args[0])
	}
}
