// Command compliance is the commodity-trade compliance service: one binary
// that serves the GraphQL and REST APIs and carries the operator commands.
//
//	compliance serve                 serve HTTP on BIND_ADDR:PORT
//	compliance migrate               create the database if missing and migrate Postgres and Neo4j
//	compliance version               print the version
//	compliance keys create|list|revoke
//	compliance ownership import [--format bods|csv|openoil] FILE...
//
// Configuration comes from the environment; see the README.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/tradecompliance/compliance/rest"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "compliance:", err)
		os.Exit(1)
	}
}

const usage = `usage: compliance <command> [arguments]

commands:
  serve      serve the API on BIND_ADDR:PORT until interrupted
  migrate    create the database if missing, then migrate Postgres and Neo4j
  version    print the version
  keys       create, list or revoke API keys (compliance keys -h)
  audit      verify the audit trail's hash chain (compliance audit verify)
  sanctions  ingest, sync or list the sanctions lists; rebuild their graph (compliance sanctions -h)
  clusters   import cluster records; rebuild their graph mirror (compliance clusters -h)
  submissions list or triage cluster submissions (compliance submissions -h)
  routes     print the route table: access, scope and limit of every route
  ownership  import beneficial-ownership files into the graph (compliance ownership -h)
`

// run executes the command named by args and returns when it is done.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return flag.ErrHelp
	}
	cfg, err := loadConfig(environ)
	if err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: cfg.LogLevel}))
	switch args[0] {
	case "serve":
		return serve(ctx, cfg, log)
	case "migrate":
		return migrate(ctx, cfg, log)
	case "version":
		fmt.Fprintln(stdout, version)
		return nil
	case "keys":
		return keysCommand(ctx, cfg, log, args[1:], stdout, stderr)
	case "audit":
		return auditCommand(ctx, cfg, log, args[1:], stdout, stderr)
	case "sanctions":
		return sanctionsCommand(ctx, cfg, log, args[1:], stdout, stderr)
	case "clusters":
		return clustersCommand(ctx, cfg, log, args[1:], stdout, stderr)
	case "ownership":
		return ownershipCommand(ctx, cfg, log, args[1:], stdout, stderr)
	case "submissions":
		return submissionsCommand(ctx, cfg, log, args[1:], stdout, stderr)
	case "routes":
		rest.PrintRoutes(stdout)
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usage)
		return nil
	default:
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", args[0])
	}
}
