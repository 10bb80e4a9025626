package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"

	"github.com/tradecompliance/compliance/relational"
)

// auditCommand runs `compliance audit verify`: it walks the hash chain and
// names the first broken row. A broken chain is an error (exit status 1).
func auditCommand(ctx context.Context, cfg Config, log *slog.Logger, args []string, stdout, stderr io.Writer) error {
	if len(args) != 1 || args[0] != "verify" {
		fmt.Fprintln(stderr, "usage: compliance audit verify")
		return flag.ErrHelp
	}
	db, err := relational.Open(ctx, cfg.DatabaseURL, log)
	if err != nil {
		return err
	}
	defer db.Close()
	a := relational.NewAuditLog(db)
	defer a.Close()
	broken, checked, err := a.VerifyChain(ctx)
	if err != nil {
		return err
	}
	out := map[string]any{"rows_checked": checked, "intact": broken == 0}
	if broken != 0 {
		out["first_broken_seq"] = broken
	}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	enc.Encode(out)
	if broken != 0 {
		return fmt.Errorf("audit chain broken at row seq %d (%d rows checked)", broken, checked)
	}
	return nil
}
