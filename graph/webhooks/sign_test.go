package webhooks

import (
	"errors"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The Standard Webhooks specification's own example; the npm reference
// library signs it to the same value.
func TestSignStandardWebhooksVector(t *testing.T) {
	const (
		secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		id     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		body   = `{"test": 2432232314}`
		want   = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	)
	got, err := Sign(secret, id, time.Unix(1614265330, 0), []byte(body))
	if err != nil || got != want {
		t.Fatalf("Sign(vector) = %q, %v, want %q", got, err, want)
	}
}

func TestNewSecret(t *testing.T) {
	re := regexp.MustCompile(`^whsec_[A-Za-z0-9+/]{43}=$`)
	a, b := NewSecret(), NewSecret()
	if !re.MatchString(a) || a == b {
		t.Fatalf("NewSecret() = %q, %q; want whsec_ + base64 of 32 random bytes, each different", a, b)
	}
	k, err := secretKey(a)
	if err != nil || len(k) != 32 {
		t.Fatalf("secretKey(NewSecret()) = %d bytes, %v; want 32", len(k), err)
	}
}

func TestVerify(t *testing.T) {
	secret := NewSecret()
	now := time.Unix(1_800_000_000, 0)
	body := []byte(`{"id":"e1","type":"webhook.test","data":{}}`)
	sig, _ := Sign(secret, "d1", now, body)
	ts := "1800000000"
	tests := []struct {
		name           string
		secret, id, ts string
		sig            string
		body           []byte
		at             time.Time
		want           error
	}{
		{"valid", secret, "d1", ts, sig, body, now, nil},
		{"valid among several signatures", secret, "d1", ts, "v1,AAAA " + sig + " v2,zzz", body, now, nil},
		{"valid within tolerance", secret, "d1", ts, sig, body, now.Add(4 * time.Minute), nil},
		{"tampered body", secret, "d1", ts, sig, []byte(strings.Replace(string(body), "{}", `{"x":1}`, 1)), now, ErrNoSignature},
		{"other id", secret, "d2", ts, sig, body, now, ErrNoSignature},
		{"other secret", NewSecret(), "d1", ts, sig, body, now, ErrNoSignature},
		{"timestamp too old", secret, "d1", ts, sig, body, now.Add(6 * time.Minute), ErrTimestampOutside},
		{"timestamp in the future", secret, "d1", ts, sig, body, now.Add(-6 * time.Minute), ErrTimestampOutside},
		{"timestamp not a number", secret, "d1", "soon", sig, body, now, ErrTimestampOutside},
		{"unknown version only", secret, "d1", ts, strings.Replace(sig, "v1,", "v2,", 1), body, now, ErrNoSignature},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Verify(tt.secret, tt.id, tt.ts, tt.sig, tt.body, tt.at, 5*time.Minute)
			if !errors.Is(got, tt.want) && !(got == nil && tt.want == nil) {
				t.Errorf("Verify(%s) = %v, want %v", tt.name, got, tt.want)
			}
		})
	}
	if _, err := Sign("whsec_!!!", "d1", now, body); err == nil {
		t.Error("Sign(malformed secret) = nil error, want one")
	}
}
