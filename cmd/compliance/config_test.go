package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

func TestLoadConfig(t *testing.T) {
	tests := []struct {
		name    string
		env     map[string]string
		check   func(Config) bool
		wantErr string
	}{
		{"defaults", nil, func(c Config) bool {
			return c.Port == 8080 && c.BindAddr == "127.0.0.1" && strings.HasSuffix(c.DatabaseURL, "/compliance?sslmode=disable") && c.ShutdownTimeout == 20*time.Second
		}, ""},
		{"port", map[string]string{"PORT": "9090"}, func(c Config) bool { return c.Port == 9090 }, ""},
		{"bad port", map[string]string{"PORT": "http"}, nil, "PORT"},
		{"port out of range", map[string]string{"PORT": "70000"}, nil, "PORT"},
		{"bad duration", map[string]string{"SHUTDOWN_TIMEOUT": "soon"}, nil, "SHUTDOWN_TIMEOUT"},
		{"bad level", map[string]string{"LOG_LEVEL": "loud"}, nil, "LOG_LEVEL"},
		{"bad bool", map[string]string{"WEBHOOK_ALLOW_PRIVATE_TARGETS": "maybe"}, nil, "WEBHOOK_ALLOW_PRIVATE_TARGETS"},
		{"webhook defaults", nil, func(c Config) bool {
			return c.WebhookTimeout == 10*time.Second && c.WebhookWorkers == 100 && c.WebhookSchedule.MaxAttempts() == 14 && !c.WebhookAllowPrivate
		}, ""},
		{"webhook settings", map[string]string{"WEBHOOK_TIMEOUT": "2s", "WEBHOOK_WORKERS": "8", "WEBHOOK_RETRY_SCHEDULE": "1s,2s"}, func(c Config) bool {
			return c.WebhookTimeout == 2*time.Second && c.WebhookWorkers == 8 && c.WebhookSchedule.String() == "1s,2s"
		}, ""},
		{"bad webhook timeout", map[string]string{"WEBHOOK_TIMEOUT": "2m"}, nil, "WEBHOOK_TIMEOUT"},
		{"bad webhook workers", map[string]string{"WEBHOOK_WORKERS": "0"}, nil, "WEBHOOK_WORKERS"},
		{"bad retry schedule", map[string]string{"WEBHOOK_RETRY_SCHEDULE": "1s,later"}, nil, "WEBHOOK_RETRY_SCHEDULE"},
		{"neo4j", map[string]string{"NEO4J_URI": "neo4j://db:7687", "NEO4J_PASSWORD": "pw"}, func(c Config) bool {
			return c.Neo4j.URI == "neo4j://db:7687" && c.Neo4j.Password == "pw"
		}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := loadConfig(func(k string) string { return tt.env[k] })
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("loadConfig(%v) error = %v, want one naming %s", tt.env, err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("loadConfig(%v) = %+v, %v", tt.env, c, err)
			}
		})
	}
}

func TestConfigLogMasksSecrets(t *testing.T) {
	c, _ := loadConfig(func(k string) string {
		return map[string]string{
			"DATABASE_URL":   "postgres://app:s3cret-pg@db:5432/compliance",
			"NEO4J_PASSWORD": "s3cret-neo",
		}[k]
	})
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("starting", "config", c)
	out := buf.String()
	for _, secret := range []string{"s3cret-pg", "s3cret-neo"} {
		if strings.Contains(out, secret) {
			t.Errorf("config log contains %q: %s", secret, out)
		}
	}
	if !strings.Contains(out, "xxxxx") {
		t.Errorf("config log shows no mask: %s", out)
	}
}
