// Package webhooksend is the HTTP adapter of webhook delivery: it posts a
// signed request (graph/webhooks.Request) and reports the answer's status.
// It is SSRF-safe by construction:
//
//   - the URL's form is checked again at every attempt (the policy may have
//     changed since the subscription was made);
//   - the host is resolved at dial time and every address must be public
//     (graph/webhooks.Policy); the connection goes only to an address that
//     was checked, never to a name resolved a second time, so DNS
//     rebinding between check and connect cannot reach a private address;
//   - the dialer's Control hook checks the address of the socket being
//     connected once more, just before connect(2);
//   - redirects are never followed (a 3xx is a failed attempt), no proxy
//     from the environment is used, and at most 64 KiB of an answer is read.
//
// With the policy's AllowPrivate (WEBHOOK_ALLOW_PRIVATE_TARGETS=true, for
// development and tests) private addresses and http are allowed.
package webhooksend

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"syscall"
	"time"

	"github.com/tradecompliance/compliance/graph"
	"github.com/tradecompliance/compliance/graph/webhooks"
)

// Config configures a Sender.
type Config struct {
	Policy   webhooks.Policy
	Timeout  time.Duration     // whole attempt, connect to last byte read; 10 s when zero
	Resolver webhooks.Resolver // nil: the system resolver
	// MaxIdleConnsPerHost keeps connections to a receiver open between
	// deliveries; 64 when zero.
	MaxIdleConnsPerHost int
}

// Sender posts webhook requests.
type Sender struct {
	client  *http.Client
	policy  webhooks.Policy
	timeout time.Duration
}

var _ webhooks.Sender = (*Sender)(nil)

// New returns a Sender.
func New(cfg Config) *Sender {
	if cfg.Timeout <= 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.Resolver == nil {
		cfg.Resolver = net.DefaultResolver
	}
	if cfg.MaxIdleConnsPerHost <= 0 {
		cfg.MaxIdleConnsPerHost = 64
	}
	policy := cfg.Policy
	dialer := &net.Dialer{
		Timeout:   min(5*time.Second, cfg.Timeout),
		KeepAlive: 30 * time.Second,
		Control:   control(policy),
	}
	resolver := cfg.Resolver
	transport := &http.Transport{
		Proxy: nil, // never a proxy from the environment
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, port, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			addrs, err := policy.Resolve(ctx, resolver, host)
			if err != nil {
				return nil, err
			}
			var last error
			for _, a := range addrs {
				conn, err := dialer.DialContext(ctx, network, net.JoinHostPort(a.String(), port))
				if err == nil {
					return conn, nil
				}
				last = err
				if ctx.Err() != nil {
					break
				}
			}
			return nil, last
		},
		ForceAttemptHTTP2:     true,
		TLSHandshakeTimeout:   min(5*time.Second, cfg.Timeout),
		ResponseHeaderTimeout: cfg.Timeout,
		MaxIdleConns:          1024,
		MaxIdleConnsPerHost:   cfg.MaxIdleConnsPerHost,
		IdleConnTimeout:       90 * time.Second,
		TLSClientConfig:       &tls.Config{MinVersion: tls.VersionTLS12},
	}
	return &Sender{
		policy:  policy,
		timeout: cfg.Timeout,
		client: &http.Client{
			Transport: transport,
			Timeout:   cfg.Timeout,
			CheckRedirect: func(*http.Request, []*http.Request) error {
				return http.ErrUseLastResponse // a redirect is the answer, not followed
			},
		},
	}
}

// control is the dialer's last check, on the very address being connected
// (just before connect(2)).
func control(policy webhooks.Policy) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", webhooks.ErrBlockedAddress, address)
		}
		a, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("%w: %s", webhooks.ErrBlockedAddress, address)
		}
		return policy.CheckAddr(a)
	}
}

// maxAnswer is how much of an answer is read (and discarded) so the
// connection can be reused.
const maxAnswer = 64 << 10

// Send posts r and returns the answer's status, or a *webhooks.SendError.
func (s *Sender) Send(ctx context.Context, r webhooks.Request) (int, error) {
	if _, err := s.policy.ParseURL(r.URL); err != nil {
		return 0, &webhooks.SendError{Kind: "blocked", Message: "the URL is not allowed: " + graph.AsError(err).Message, Err: err}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return 0, &webhooks.SendError{Kind: "network", Message: "the URL cannot be requested", Err: err}
	}
	for k, v := range r.Header {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return 0, s.classify(err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer))
	resp.Body.Close()
	return resp.StatusCode, nil
}

// classify turns a transport error into words safe to show the subscriber.
func (s *Sender) classify(err error) *webhooks.SendError {
	var (
		dnsErr  *net.DNSError
		certErr *tls.CertificateVerificationError
		hostErr x509.HostnameError
		uaErr   x509.UnknownAuthorityError
		invErr  x509.CertificateInvalidError
		recErr  tls.RecordHeaderError
		alert   tls.AlertError
	)
	switch {
	case errors.Is(err, webhooks.ErrBlockedAddress):
		return &webhooks.SendError{Kind: "blocked", Message: "the target resolves to a non-public address; deliveries go only to public addresses", Err: err}
	case errors.As(err, &dnsErr):
		return &webhooks.SendError{Kind: "dns", Message: "the target host does not resolve", Err: err}
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(err, os.ErrDeadlineExceeded) || isTimeout(err):
		return &webhooks.SendError{Kind: "timeout", Message: fmt.Sprintf("no answer within %s", s.timeout), Err: err}
	case errors.As(err, &certErr) || errors.As(err, &hostErr) || errors.As(err, &uaErr) || errors.As(err, &invErr):
		return &webhooks.SendError{Kind: "tls", Message: "the target's TLS certificate is not valid for its host", Err: err}
	case errors.As(err, &recErr) || errors.As(err, &alert):
		return &webhooks.SendError{Kind: "tls", Message: "the TLS handshake failed", Err: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &webhooks.SendError{Kind: "connect", Message: "connection refused", Err: err}
	case errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return &webhooks.SendError{Kind: "network", Message: "the connection was closed before an answer", Err: err}
	case errors.Is(err, syscall.EHOSTUNREACH) || errors.Is(err, syscall.ENETUNREACH):
		return &webhooks.SendError{Kind: "connect", Message: "the target is unreachable", Err: err}
	}
	return &webhooks.SendError{Kind: "network", Message: "the request failed before an answer", Err: err}
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}
