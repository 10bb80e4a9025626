// Command benchtool is the load generator and measuring tool behind
// scripts/bench. Each subcommand measures one thing against the real
// compliance binary and appends its figures, as JSON lines, to a results
// file; `benchtool report` prints them as one table. It starts and stops the
// servers it measures itself, so that it knows their pids and start times.
//
//	benchtool startup -bin B -out R [-runs 5]
//	benchtool rss     -bin B -out R -key K
//	benchtool load    -bin B -out R -key K [-conns 64 -warmup 3s -duration 15s]
//	benchtool seed    -member M [-rows 1000000]
//	benchtool export  -bin B -out R -key K -member M [-rows 1000000]
//	benchtool regulatory -bin B -out R [-conns 64 -warmup 3s -duration 15s -keys 2500]
//	benchtool webhooks -bin B -out R [-fanout 10 -rate 100 -warmup 3s -duration 15s -latency-events 200]
//	benchtool screening -bin B -out R [-conns 64 -warmup 3s -duration 15s -single 15s]
//	          [-ofac-db URL -watchman BIN | -watchman-error WHY] [-watchman-sample 200] [-data DIR]
//	benchtool kyc     -bin B -out R [-rate 50 -warmup 3s -duration 15s -subscribers 1000 -step-delay 2s] [-data DIR]
//	benchtool ownership -bin B -out R [-edges 100000 -iterations 200 -seed 6]
//	benchtool report  -in R
//	benchtool dropdb  -url ADMIN_URL -name DB
//
// Servers inherit the environment (DATABASE_URL, NEO4J_URI, LOG_LEVEL ...);
// benchtool sets PORT and BIND_ADDR for each.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

const usage = `usage: benchtool <startup|rss|load|seed|export|regulatory|clusters|webhooks|screening|kyc|ownership|report|dropdb> [flags]
(see the package comment in scripts/benchtool/main.go)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1], os.Args[2:])
	stop()
	stopAllServers()
	if errors.Is(err, flag.ErrHelp) {
		os.Exit(2)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchtool:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cmd string, args []string) error {
	switch cmd {
	case "startup":
		return cmdStartup(ctx, args)
	case "rss":
		return cmdRSS(ctx, args)
	case "load":
		return cmdLoad(ctx, args)
	case "seed":
		return cmdSeed(ctx, args)
	case "export":
		return cmdExport(ctx, args)
	case "regulatory":
		return cmdRegulatory(ctx, args)
	case "clusters":
		return cmdClusters(ctx, args)
	case "webhooks":
		return cmdWebhooks(ctx, args)
	case "screening":
		return cmdScreening(ctx, args)
	case "kyc":
		return cmdKYC(ctx, args)
	case "ownership":
		return cmdOwnership(ctx, args)
	case "report":
		return cmdReport(args)
	case "dropdb":
		return cmdDropDB(ctx, args)
	default:
		fmt.Fprint(os.Stderr, usage)
		return fmt.Errorf("unknown command %q", cmd)
	}
}

// common are the flags most subcommands share.
type common struct {
	bin    string
	out    string
	key    string
	logDir string
}

func (c *common) register(fs *flag.FlagSet, needKey bool) {
	fs.StringVar(&c.bin, "bin", "", "path of the compliance binary")
	fs.StringVar(&c.out, "out", "", "results file (JSON lines, appended)")
	fs.StringVar(&c.logDir, "logs", os.TempDir(), "directory for server logs")
	if needKey {
		fs.StringVar(&c.key, "key", "", "production API key (or env BENCH_KEY)")
	}
}

func (c *common) check(needKey bool) error {
	if c.bin == "" || c.out == "" {
		return errors.New("-bin and -out are required")
	}
	if needKey && c.key == "" {
		c.key = os.Getenv("BENCH_KEY")
		if c.key == "" {
			return errors.New("-key (or BENCH_KEY) is required")
		}
	}
	return nil
}

// say prints progress on stderr; the table goes to stdout.
func say(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "bench: "+format+"\n", args...)
}
