package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/relational"
)

const keysUsage = `usage:
  compliance keys create --member M --name N [--scopes a,b] [--env production] [--expires RFC3339]
  compliance keys list --member M
  compliance keys revoke --member M --id KEY_ID
`

// keysCommand creates, lists or revokes keys, printing JSON on stdout.
func keysCommand(ctx context.Context, cfg Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, keysUsage)
		return flag.ErrHelp
	}
	fs := flag.NewFlagSet("keys "+args[0], flag.ContinueOnError)
	fs.SetOutput(stderr)
	member := fs.String("member", "", "member name (created with the full production plan if missing)")
	name := fs.String("name", "", "key name")
	scopes := fs.String("scopes", "", "comma-separated scopes (default: the whole plan)")
	env := fs.String("env", "production", "key environment: production")
	expires := fs.String("expires", "", "expiry, RFC 3339 (default: never)")
	id := fs.String("id", "", "key id (revoke)")
	if err := fs.Parse(args[1:]); err != nil {
		return err
	}
	if *member == "" {
		return fmt.Errorf("--member is required")
	}
	db, err := relational.Open(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return err
	}
	defer db.Close()
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")

	switch args[0] {
	case "create":
		if *env != string(graph.Production) {
			return fmt.Errorf("--env must be production (sandbox keys are issued by POST /api/v1/keys/sandbox)")
		}
		var exp *time.Time
		if *expires != "" {
			t, err := time.Parse(time.RFC3339, *expires)
			if err != nil {
				return fmt.Errorf("--expires must be RFC 3339, such as 2027-01-02T15:04:05Z")
			}
			exp = &t
		}
		m, err := db.EnsureMember(ctx, *member, graph.ProductionScopes)
		if err != nil {
			return err
		}
		var sc []string
		if *scopes != "" {
			sc = strings.Split(*scopes, ",")
		}
		keys := &graph.Keys{Store: db}
		k, err := keys.Create(ctx, graph.CreateRequest{MemberID: m.ID, PlanScopes: m.PlanScopes, Name: *name, Scopes: sc, ExpiresAt: exp})
		if err != nil {
			return err
		}
		return enc.Encode(map[string]any{"key": k.Raw, "key_id": k.ID, "scopes": k.Scopes, "expires_at": k.ExpiresAt, "member": m.Name})
	case "list":
		m, err := db.MemberByName(ctx, *member)
		if err != nil {
			return err
		}
		ks, err := db.ListKeys(ctx, m.ID)
		if err != nil {
			return err
		}
		return enc.Encode(map[string]any{"keys": ks})
	case "revoke":
		m, err := db.MemberByName(ctx, *member)
		if err != nil {
			return err
		}
		kid, err := graph.ParseID("id", "", *id)
		if err != nil {
			return fmt.Errorf("--id must be a key id (uuid)")
		}
		was, err := db.RevokeKey(ctx, m.ID, kid)
		if err != nil {
			return err
		}
		return enc.Encode(map[string]any{"revoked": was})
	default:
		fmt.Fprint(stderr, keysUsage)
		return fmt.Errorf("unknown keys command %q", args[0])
	}
}
