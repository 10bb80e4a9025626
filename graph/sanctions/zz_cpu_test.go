package sanctions_test

import (
	"runtime"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_THREAD, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	mix := latencyMix(t)
	for _, c := range []string{"un_untreated", "un_treated", "neg_global", "us_congress", "typo_every_token"} {
		qs := mix[c]
		for _, q := range qs[:20] {
			shared.ix.Search(q)
		}
		c0 := cpuNow()
		for _, q := range qs {
			shared.ix.Search(q)
		}
		t.Logf("%-18s cpu/query %v", c, (cpuNow()-c0)/time.Duration(len(qs)))
	}
}

func TestZZCounts(t *testing.T) {
	mix := latencyMix(t)
	for _, c := range []string{"un_untreated", "neg_global", "typo_every_token"} {
		var a, b, l, p int
		for _, q := range mix[c] {
			x, y, z, w := shared.ix.DebugCounts(q)
			a += x
			b += y
			l += z
			p += w
		}
		n := len(mix[c])
		t.Logf("%s touched %d cands %d lookups %d postings %d", c, a/n, b/n, l/n, p/n)
	}
}
