package webhooks

import (
	"testing"
	"time"
)

// The default schedule spans about three days, in 14 attempts, growing
// exponentially before it levels off at 12 hours.
func TestDefaultSchedule(t *testing.T) {
	s := DefaultSchedule
	if got := s.MaxAttempts(); got != 14 {
		t.Errorf("MaxAttempts() = %d, want 14", got)
	}
	total := s.Total()
	if total < 60*time.Hour || total > 84*time.Hour {
		t.Errorf("Total() = %s, want about 3 days (60h..84h)", total)
	}
	for i := 1; i < len(s.Delays); i++ {
		if s.Delays[i] < s.Delays[i-1] {
			t.Errorf("Delays[%d] = %s < Delays[%d] = %s: the schedule must not shrink", i, s.Delays[i], i-1, s.Delays[i-1])
		}
	}
	// With the extreme jitter draws, the span stays within ±20%.
	lo, hi := time.Duration(0), time.Duration(0)
	for a := 1; a < s.MaxAttempts(); a++ {
		d0, ok0 := s.Next(a, func() float64 { return 0 })
		d1, ok1 := s.Next(a, func() float64 { return 0.999999 })
		if !ok0 || !ok1 {
			t.Fatalf("Next(%d) = not ok; want a retry", a)
		}
		lo += d0
		hi += d1
	}
	if lo < total*79/100 || hi > total*121/100 {
		t.Errorf("jittered span = %s..%s, want within ±20%% of %s", lo, hi, total)
	}
	if _, ok := s.Next(s.MaxAttempts(), nil); ok {
		t.Errorf("Next(last attempt) = ok, want dead-letter")
	}
	if _, ok := s.Next(0, nil); ok {
		t.Errorf("Next(0) = ok, want not ok")
	}
}

func TestScheduleJitter(t *testing.T) {
	s := Schedule{Delays: []time.Duration{10 * time.Second}, Jitter: 0.2}
	tests := []struct {
		r    float64
		want time.Duration
	}{
		{0, 8 * time.Second},
		{0.5, 10 * time.Second},
		{0.75, 11 * time.Second},
	}
	for _, tt := range tests {
		if got, _ := s.Next(1, func() float64 { return tt.r }); got != tt.want {
			t.Errorf("Next(1) with rnd %v = %s, want %s", tt.r, got, tt.want)
		}
	}
	seen := map[time.Duration]bool{}
	for range 50 {
		d, _ := s.Next(1, nil)
		if d < 8*time.Second || d > 12*time.Second {
			t.Fatalf("Next(1) = %s, want 8s..12s", d)
		}
		seen[d] = true
	}
	if len(seen) < 10 {
		t.Errorf("50 draws gave %d distinct delays; jitter is not random", len(seen))
	}
}

func TestParseSchedule(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		wantErr bool
	}{
		{"1s,2s,4s", "1s,2s,4s", false},
		{" 200ms , 1s ", "200ms,1s", false},
		{"", "", true},
		{"1s,soon", "", true},
		{"-1s", "", true},
		{"0s", "", true},
		{"200h", "", true},
	}
	for _, tt := range tests {
		s, err := ParseSchedule(tt.in)
		if (err != nil) != tt.wantErr || (err == nil && s.String() != tt.want) {
			t.Errorf("ParseSchedule(%q) = %q, %v; want %q, error %v", tt.in, s.String(), err, tt.want, tt.wantErr)
		}
	}
}
