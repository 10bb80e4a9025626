package webhooks

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// Every catalog event renders in every format as valid JSON of the
// format's shape.
func TestRenderEveryEventEveryFormat(t *testing.T) {
	at := time.Date(2026, 11, 21, 9, 30, 0, 123000000, time.UTC)
	for _, e := range Catalog() {
		data, err := json.Marshal(e.Example)
		if err != nil {
			t.Fatalf("%s example: %v", e.Name, err)
		}
		for _, f := range Formats {
			t.Run(e.Name+"/"+string(f), func(t *testing.T) {
				body, err := Render(f, "ev-1", e.Name, at, data)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]any
				if err := json.Unmarshal(body, &m); err != nil {
					t.Fatalf("Render = %s: not JSON: %v", body, err)
				}
				switch f {
				case FormatRaw:
					var env Envelope
					json.Unmarshal(body, &env)
					if env.ID != "ev-1" || env.Type != e.Name || env.Timestamp != "2026-11-21T09:30:00.123Z" || !bytes.Equal(env.Data, data) {
						t.Errorf("raw envelope = %s", body)
					}
				case FormatSlack:
					checkSlack(t, m, e.Title)
				case FormatTeams:
					checkTeams(t, m, e.Title)
				}
			})
		}
	}
}

func checkSlack(t *testing.T, m map[string]any, title string) {
	t.Helper()
	if text, _ := m["text"].(string); !strings.HasPrefix(text, title) {
		t.Errorf("slack text = %q, want the title %q first (the notification fallback)", text, title)
	}
	blocks, _ := m["blocks"].([]any)
	if len(blocks) < 2 {
		t.Fatalf("slack blocks = %v", blocks)
	}
	head := blocks[0].(map[string]any)
	if head["type"] != "header" || head["text"].(map[string]any)["type"] != "plain_text" {
		t.Errorf("first block = %v, want a plain_text header", head)
	}
	if n := len([]rune(head["text"].(map[string]any)["text"].(string))); n > 150 {
		t.Errorf("header text is %d characters; Slack allows 150", n)
	}
	for _, b := range blocks {
		bm := b.(map[string]any)
		if bm["type"] == "section" {
			fields := bm["fields"].([]any)
			if len(fields) > 10 {
				t.Errorf("section has %d fields; Slack allows 10", len(fields))
			}
			for _, f := range fields {
				if n := len(f.(map[string]any)["text"].(string)); n > 2000 {
					t.Errorf("field text is %d characters; Slack allows 2000", n)
				}
			}
		}
	}
	if last := blocks[len(blocks)-1].(map[string]any); last["type"] != "context" {
		t.Errorf("last block = %v, want the context line", last)
	}
}

func checkTeams(t *testing.T, m map[string]any, title string) {
	t.Helper()
	if m["type"] != "message" {
		t.Fatalf("teams type = %v, want message", m["type"])
	}
	att := m["attachments"].([]any)[0].(map[string]any)
	if att["contentType"] != "application/vnd.microsoft.card.adaptive" {
		t.Errorf("contentType = %v", att["contentType"])
	}
	card := att["content"].(map[string]any)
	if card["type"] != "AdaptiveCard" || card["version"] != "1.4" || card["$schema"] == nil {
		t.Errorf("card = %v", card)
	}
	body := card["body"].([]any)
	if first := body[0].(map[string]any); first["type"] != "TextBlock" || first["text"] != title {
		t.Errorf("first card element = %v, want the title %q", first, title)
	}
}

func TestRenderRawIsStable(t *testing.T) {
	data := json.RawMessage(`{"b":1,"a":"x"}`)
	at := time.Unix(1_800_000_000, 0)
	a, _ := Render(FormatRaw, "e", "webhook.test", at, data)
	b, _ := Render(FormatRaw, "e", "webhook.test", at, data)
	if !bytes.Equal(a, b) {
		t.Fatalf("Render is not deterministic: %s vs %s", a, b)
	}
	if !strings.Contains(string(a), `"data":{"b":1,"a":"x"}`) {
		t.Errorf("raw body = %s; want the payload verbatim, members in order", a)
	}
}

func TestChatEscapingAndTruncation(t *testing.T) {
	data := json.RawMessage(`{"name":"<b>&co</b>","long":"` + strings.Repeat("x", 1000) + `","n":null,"list":["a","b"],"ok":true}`)
	body, _ := Render(FormatSlack, "e", "api_key.created", time.Unix(0, 0), data)
	s := string(body)
	if strings.Contains(s, "<b>") || !strings.Contains(s, "&lt;b&gt;&amp;co&lt;/b&gt;") {
		t.Errorf("slack body does not escape mrkdwn: %s", s)
	}
	fs := facts(data)
	want := []string{"name", "long", "list", "ok"} // null members are left out
	if len(fs) != len(want) {
		t.Fatalf("facts = %v, want names %v", fs, want)
	}
	for i, f := range fs {
		if f.name != want[i] {
			t.Errorf("fact %d = %q, want %q", i, f.name, want[i])
		}
	}
	if n := len([]rune(fs[1].value)); n != maxFactValue {
		t.Errorf("long fact has %d characters, want it cut to %d", n, maxFactValue)
	}
	if fs[2].value != "a, b" || fs[3].value != "yes" {
		t.Errorf("facts = %v", fs)
	}
}
