package webhooks

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"
)

// Standard Webhooks (https://www.standardwebhooks.com): the headers every
// delivery carries, and the secret's form.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
	SecretPrefix    = "whsec_"
	secretBytes     = 32 // 256-bit signing keys (the spec allows 24 to 64 bytes)
)

// NewSecret returns a fresh signing secret: "whsec_" and the base64 of 32
// random bytes.
func NewSecret() string {
	b := make([]byte, secretBytes)
	rand.Read(b)
	return SecretPrefix + base64.StdEncoding.EncodeToString(b)
}

// secretKey returns the HMAC key of a secret: the base64 after "whsec_".
func secretKey(secret string) ([]byte, error) {
	k, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || len(k) == 0 {
		return nil, errors.New("malformed webhook secret")
	}
	return k, nil
}

// Sign returns the webhook-signature header value for a message:
// "v1," and the base64 HMAC-SHA256 of "id.timestamp.body" under the secret.
func Sign(secret, id string, ts time.Time, body []byte) (string, error) {
	key, err := secretKey(secret)
	if err != nil {
		return "", err
	}
	return "v1," + base64.StdEncoding.EncodeToString(mac(key, id, ts.Unix(), body)), nil
}

func mac(key []byte, id string, unix int64, body []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(id))
	h.Write([]byte{'.'})
	h.Write([]byte(strconv.FormatInt(unix, 10)))
	h.Write([]byte{'.'})
	h.Write(body)
	return h.Sum(nil)
}

// Verification failures.
var (
	ErrNoSignature      = errors.New("no valid v1 signature matches")
	ErrTimestampOutside = errors.New("webhook-timestamp is outside the tolerance")
)

// Verify checks a received message as a receiver would: the timestamp
// within tolerance of now, and one of the space-separated signatures in
// sigHeader a valid v1 signature. Tests and the benchmark receiver use it;
// the end-to-end tests also verify with the standardwebhooks npm library.
func Verify(secret, id, tsHeader, sigHeader string, body []byte, now time.Time, tolerance time.Duration) error {
	key, err := secretKey(secret)
	if err != nil {
		return err
	}
	unix, err := strconv.ParseInt(tsHeader, 10, 64)
	if err != nil {
		return ErrTimestampOutside
	}
	if d := now.Sub(time.Unix(unix, 0)); d > tolerance || d < -tolerance {
		return ErrTimestampOutside
	}
	want := mac(key, id, unix, body)
	for _, sig := range strings.Fields(sigHeader) {
		v, b64, ok := strings.Cut(sig, ",")
		if !ok || v != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			return nil
		}
	}
	return ErrNoSignature
}
