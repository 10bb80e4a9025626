package webhooks

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Schedule is the retry schedule: Delays[i] is the wait after failed
// attempt i+1 before attempt i+2, each varied by ±Jitter (a fraction) so
// that receivers recovering from an outage are not hit by every retry at
// once. After len(Delays)+1 failed attempts the delivery is dead-lettered.
type Schedule struct {
	Delays []time.Duration
	Jitter float64 // 0.2 = ±20%
}

// DefaultSchedule is the documented schedule: 14 attempts over about three
// days. The first attempt is immediate; retries follow after 5 s, 1 min,
// 5 min, 30 min, 1 h, 2 h, 4 h, 8 h and then every 12 h five times, each
// ±20% (cumulative: 75 h 36 min nominal, 60 h to 91 h with jitter).
var DefaultSchedule = Schedule{
	Delays: []time.Duration{
		5 * time.Second, time.Minute, 5 * time.Minute, 30 * time.Minute,
		time.Hour, 2 * time.Hour, 4 * time.Hour, 8 * time.Hour,
		12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour, 12 * time.Hour,
	},
	Jitter: 0.2,
}

// MaxAttempts is how many attempts a delivery gets before it is dead-lettered.
func (s Schedule) MaxAttempts() int { return len(s.Delays) + 1 }

// Total is the nominal time from the first attempt to the last.
func (s Schedule) Total() time.Duration {
	var t time.Duration
	for _, d := range s.Delays {
		t += d
	}
	return t
}

// Next returns the wait after failed attempt number attempt (1-based)
// before the next one, and false when attempt was the last. rnd returns a
// float in [0,1); nil uses math/rand.
func (s Schedule) Next(attempt int, rnd func() float64) (time.Duration, bool) {
	if attempt < 1 || attempt > len(s.Delays) {
		return 0, false
	}
	d := s.Delays[attempt-1]
	if s.Jitter > 0 {
		if rnd == nil {
			rnd = rand.Float64
		}
		f := 1 + s.Jitter*(2*rnd()-1)
		d = time.Duration(float64(d) * f)
	}
	return d, true
}

// ParseSchedule reads a comma-separated list of Go durations ("1s,2s,5s"),
// the form of WEBHOOK_RETRY_SCHEDULE (for tests: a short schedule). The
// jitter is DefaultSchedule's.
func ParseSchedule(s string) (Schedule, error) {
	var out Schedule
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		d, err := time.ParseDuration(part)
		if err != nil || d <= 0 || d > 7*24*time.Hour {
			return Schedule{}, fmt.Errorf("%q is not a positive duration of at most 168h", part)
		}
		out.Delays = append(out.Delays, d)
	}
	if len(out.Delays) == 0 || len(out.Delays) > 50 {
		return Schedule{}, fmt.Errorf("a schedule lists 1 to 50 durations")
	}
	out.Jitter = DefaultSchedule.Jitter
	return out, nil
}

// String returns the schedule as ParseSchedule reads it.
func (s Schedule) String() string {
	parts := make([]string, len(s.Delays))
	for i, d := range s.Delays {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}
