package webhooks

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"

	"github.com/tradecompliance/compliance/graph"
)

func TestCheckAddr(t *testing.T) {
	tests := []struct {
		addr   string
		public bool
	}{
		{"8.8.8.8", true},
		{"93.184.215.14", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"127.1.2.3", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		{"100.64.0.1", false},         // CGNAT
		{"100.100.100.200", false},    // Alibaba metadata
		{"169.254.169.254", false},    // AWS/GCP/Azure/OpenStack metadata
		{"169.254.170.2", false},      // ECS task metadata
		{"168.63.129.16", false},      // Azure WireServer
		{"192.0.0.192", false},        // Oracle metadata
		{"0.0.0.0", false},            // unspecified
		{"224.0.0.1", false},          // multicast
		{"239.255.255.250", false},    // multicast
		{"255.255.255.255", false},    // broadcast
		{"240.0.0.1", false},          // reserved
		{"198.18.0.1", false},         // benchmarking
		{"192.0.2.1", false},          // documentation
		{"::1", false},                // loopback
		{"::", false},                 // unspecified
		{"fd00:ec2::254", false},      // AWS IPv6 metadata (unique local)
		{"fc00::1", false},            // unique local
		{"fe80::1", false},            // link-local
		{"fe80::1%eth0", false},       // link-local with a zone
		{"ff02::1", false},            // multicast
		{"2001:db8::1", false},        // documentation
		{"::ffff:127.0.0.1", false},   // IPv4-mapped loopback
		{"::ffff:10.0.0.1", false},    // IPv4-mapped private
		{"::ffff:8.8.8.8", true},      // IPv4-mapped public
		{"64:ff9b::a9fe:a9fe", false}, // NAT64 of 169.254.169.254
		{"64:ff9b::808:808", true},    // NAT64 of 8.8.8.8
		{"2002:7f00:1::", false},      // 6to4 of 127.0.0.1
		{"2002:0808:0808::1", true},   // 6to4 of 8.8.8.8
		{"::127.0.0.1", false},        // IPv4-compatible (deprecated)
	}
	p := Policy{}
	for _, tt := range tests {
		a := netip.MustParseAddr(tt.addr)
		err := p.CheckAddr(a)
		if (err == nil) != tt.public {
			t.Errorf("CheckAddr(%s) = %v, want public=%v", tt.addr, err, tt.public)
		}
		if err != nil && !errors.Is(err, ErrBlockedAddress) {
			t.Errorf("CheckAddr(%s) = %v, want an error wrapping ErrBlockedAddress", tt.addr, err)
		}
		if err := (Policy{AllowPrivate: true}).CheckAddr(a); err != nil {
			t.Errorf("CheckAddr(%s) with private targets allowed = %v, want nil", tt.addr, err)
		}
	}
}

func TestParseURL(t *testing.T) {
	tests := []struct {
		url          string
		allowPrivate bool
		ok           bool
	}{
		{"https://hooks.example.com/compliance", false, true},
		{"https://hooks.slack.com/services/T0/B0/XYZ", false, true},
		{"https://example.com:8443/x?token=abc", false, true},
		{"HTTPS://Example.com/x", false, true},
		{"http://hooks.example.com/x", false, false},
		{"http://127.0.0.1:8080/x", true, true},
		{"ftp://example.com/x", false, false},
		{"https://user:pw@example.com/x", false, false},
		{"https://example.com/x#frag", false, false},
		{"https:///nohost", false, false},
		{"/relative", false, false},
		{"", false, false},
		{"https://localhost/x", false, false},
		{"https://api.localhost/x", false, false},
		{"https://metadata.google.internal/computeMetadata/v1/", false, false},
		{"https://printer.local/", false, false},
		{"https://127.0.0.1/x", false, false},
		{"https://[::1]/x", false, false},
		{"https://169.254.169.254/latest/meta-data/", false, false},
		{"https://10.0.0.5/x", false, false},
		{"https://[fd00::1]/x", false, false},
		{"https://8.8.8.8/x", false, true},
		{"https://example.com:99999/x", false, false},
		{"https://localhost/x", true, true},
		{"javascript:alert(1)", false, false},
	}
	for _, tt := range tests {
		_, err := Policy{AllowPrivate: tt.allowPrivate}.ParseURL(tt.url)
		if (err == nil) != tt.ok {
			t.Errorf("ParseURL(%q, allowPrivate=%v) = %v, want ok=%v", tt.url, tt.allowPrivate, err, tt.ok)
		}
		if err != nil {
			if e := graph.AsError(err); e.Code != graph.CodeInvalid || e.Field != "url" {
				t.Errorf("ParseURL(%q) error = %v, want invalid naming url", tt.url, err)
			}
		}
	}
}

// fakeResolver answers from a table.
type fakeResolver map[string][]string

func (f fakeResolver) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	addrs, ok := f[host]
	if !ok {
		return nil, errors.New("no such host")
	}
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	return out, nil
}

func TestResolveAndCheckURL(t *testing.T) {
	r := fakeResolver{
		"public.example":  {"93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"},
		"private.example": {"10.0.0.7"},
		"mixed.example":   {"93.184.215.14", "127.0.0.1"}, // one private answer refuses all
		"rebind.example":  {"169.254.169.254"},
	}
	tests := []struct {
		url     string
		wantErr string // "" ok; else the message fragment
	}{
		{"https://public.example/hook", ""},
		{"https://private.example/hook", "non-public"},
		{"https://mixed.example/hook", "non-public"},
		{"https://rebind.example/hook", "non-public"},
		{"https://unknown.example/hook", "does not resolve"},
		{"https://8.8.8.8/hook", ""},
	}
	p := Policy{}
	for _, tt := range tests {
		_, err := p.CheckURL(context.Background(), r, tt.url)
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("CheckURL(%s) = %v, want ok", tt.url, err)
		case tt.wantErr != "" && (err == nil || !contains(err.Error(), tt.wantErr)):
			t.Errorf("CheckURL(%s) = %v, want an error saying %q", tt.url, err, tt.wantErr)
		}
	}
	addrs, err := p.Resolve(context.Background(), r, "public.example")
	if err != nil || len(addrs) != 2 {
		t.Errorf("Resolve(public.example) = %v, %v; want its 2 addresses", addrs, err)
	}
	if _, err := p.Resolve(context.Background(), r, "mixed.example"); !errors.Is(err, ErrBlockedAddress) {
		t.Errorf("Resolve(mixed.example) = %v, want ErrBlockedAddress", err)
	}
	if _, err := (Policy{AllowPrivate: true}).Resolve(context.Background(), r, "private.example"); err != nil {
		t.Errorf("Resolve(private.example) with private targets allowed = %v, want ok", err)
	}
}

func contains(s, sub string) bool { return strings.Contains(s, sub) }
