package webhooksend

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/tradecompliance/compliance/graph/webhooks"
)

// Every test talks only to servers on the loopback address.

type fakeResolver map[string]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	a, ok := f[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	return []netip.Addr{netip.MustParseAddr(a)}, nil
}

func request(url string) webhooks.Request {
	return webhooks.Request{URL: url, Body: []byte(`{"x":1}`), Header: map[string]string{"Content-Type": "application/json", "webhook-id": "d1"}}
}

func TestSendPostsTheRequest(t *testing.T) {
	var got *http.Request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r
		w.WriteHeader(204)
	}))
	defer srv.Close()
	s := New(Config{Policy: webhooks.Policy{AllowPrivate: true}, Timeout: 2 * time.Second})
	status, err := s.Send(context.Background(), request(srv.URL+"/hook"))
	if err != nil || status != 204 {
		t.Fatalf("Send = %d, %v; want 204", status, err)
	}
	if got.Method != "POST" || got.URL.Path != "/hook" || got.Header.Get("webhook-id") != "d1" || got.Header.Get("Content-Type") != "application/json" {
		t.Errorf("request = %s %s %v", got.Method, got.URL, got.Header)
	}
}

// Without WEBHOOK_ALLOW_PRIVATE_TARGETS nothing reaches a loopback or
// private address: not by IP literal, not by a name resolving to one, and
// not over http.
func TestSendRefusesNonPublicTargets(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	s := New(Config{Timeout: 2 * time.Second, Resolver: fakeResolver{
		"rebind.example": "127.0.0.1", "meta.example": "169.254.169.254", "nat.example": "100.64.1.1",
	}})
	tests := []string{
		"https://127.0.0.1:" + port + "/x",
		"https://rebind.example:" + port + "/x",
		"https://meta.example/latest/meta-data",
		"https://nat.example/x",
		"https://[::1]:" + port + "/x",
		"http://rebind.example:" + port + "/x",
		srv.URL + "/x",
	}
	for _, url := range tests {
		status, err := s.Send(context.Background(), request(url))
		var se *webhooks.SendError
		if !errors.As(err, &se) || se.Kind != "blocked" || status != 0 {
			t.Errorf("Send(%s) = %d, %v; want a blocked SendError", url, status, err)
		}
		if se != nil && strings.Contains(se.Message, "127.0.0.1") {
			t.Errorf("Send(%s) message names the resolved address: %q", url, se.Message)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the loopback server was reached %d times", n)
	}
}

// The dialer's Control hook refuses a non-public socket address even when
// resolution was bypassed.
func TestControlRefusesNonPublicSocket(t *testing.T) {
	c := control(webhooks.Policy{})
	for _, addr := range []string{"127.0.0.1:80", "[::1]:443", "10.0.0.1:443", "169.254.169.254:80", "[fd00:ec2::254]:80", "nonsense"} {
		if err := c("tcp", addr, nil); !errors.Is(err, webhooks.ErrBlockedAddress) {
			t.Errorf("control(%s) = %v, want ErrBlockedAddress", addr, err)
		}
	}
	if err := c("tcp", "8.8.8.8:443", nil); err != nil {
		t.Errorf("control(8.8.8.8:443) = %v, want nil", err)
	}
	if err := control(webhooks.Policy{AllowPrivate: true})("tcp", "127.0.0.1:80", nil); err != nil {
		t.Errorf("control(127.0.0.1) with private allowed = %v, want nil", err)
	}
}

func TestSendDoesNotFollowRedirects(t *testing.T) {
	var followed atomic.Int32
	mux := http.NewServeMux()
	mux.HandleFunc("/a", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/b", http.StatusFound) })
	mux.HandleFunc("/b", func(w http.ResponseWriter, r *http.Request) { followed.Add(1) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	s := New(Config{Policy: webhooks.Policy{AllowPrivate: true}, Timeout: 2 * time.Second})
	status, err := s.Send(context.Background(), request(srv.URL+"/a"))
	if err != nil || status != 302 {
		t.Fatalf("Send = %d, %v; want the 302 itself", status, err)
	}
	if followed.Load() != 0 {
		t.Errorf("the redirect was followed")
	}
	if r := webhooks.Classify(status, err); r.Outcome != webhooks.OutcomeRetry {
		t.Errorf("a redirect is %s, want a failed attempt (retry)", r.Outcome)
	}
}

func TestSendErrors(t *testing.T) {
	slow := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-time.After(2 * time.Second):
		case <-r.Context().Done():
		}
	}))
	defer slow.Close()
	closed := httptest.NewServer(http.NotFoundHandler())
	closedURL := closed.URL
	closed.Close()
	tlsSrv := httptest.NewTLSServer(http.NotFoundHandler()) // a certificate no one trusts
	defer tlsSrv.Close()
	s := New(Config{Policy: webhooks.Policy{AllowPrivate: true}, Timeout: 300 * time.Millisecond,
		Resolver: fakeResolver{"localhost": "127.0.0.1"}})
	tests := []struct {
		url, kind string
	}{
		{slow.URL, "timeout"},
		{closedURL, "connect"},
		{tlsSrv.URL, "tls"},
		{"https://nowhere.invalid/x", "dns"},
	}
	for _, tt := range tests {
		_, err := s.Send(context.Background(), request(tt.url))
		var se *webhooks.SendError
		if !errors.As(err, &se) || se.Kind != tt.kind {
			t.Errorf("Send(%s) = %v, want a %s SendError", tt.url, err, tt.kind)
		}
	}
}
