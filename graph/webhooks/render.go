package webhooks

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
)

// Envelope is the raw delivery body: the event, with its payload as data.
//
//	{"id":"<event uuid>","type":"api_key.created","timestamp":"2026-11-21T09:30:00Z","data":{...}}
type Envelope struct {
	ID        string          `json:"id"`
	Type      string          `json:"type"`
	Timestamp string          `json:"timestamp"` // when the event occurred, RFC 3339 UTC
	Data      json.RawMessage `json:"data"`
}

// Render returns the body of a delivery in format f. The raw body is the
// same bytes on every attempt; only its signature's timestamp changes.
func Render(f Format, eventID, eventType string, occurred time.Time, data json.RawMessage) ([]byte, error) {
	if len(data) == 0 {
		data = json.RawMessage("{}")
	}
	ts := occurred.UTC().Format(time.RFC3339Nano)
	switch f {
	case FormatSlack:
		return marshal(slackMessage(eventID, eventType, ts, data))
	case FormatTeams:
		return marshal(teamsMessage(eventID, eventType, ts, data))
	default:
		return marshal(Envelope{ID: eventID, Type: eventType, Timestamp: ts, Data: data})
	}
}

func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// fact is one "name: value" line of a chat message.
type fact struct{ name, value string }

// Chat message limits (Slack: 10 fields of at most 2,000 characters, a
// header of at most 150; Teams cards are kept to the same shape).
const (
	maxFacts     = 10
	maxFactValue = 300
	maxTitle     = 150
)

// facts returns the payload's top-level members in order, as text.
func facts(data json.RawMessage) []fact {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []fact
	for dec.More() && len(out) < maxFacts {
		kt, err := dec.Token()
		if err != nil {
			return out
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return out
		}
		s := factValue(v)
		if s == "" {
			continue
		}
		out = append(out, fact{name: fmt.Sprint(kt), value: truncate(s, maxFactValue)})
	}
	return out
}

func factValue(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		if x {
			return "yes"
		}
		return "no"
	case []any:
		parts := make([]string, 0, len(x))
		for _, e := range x {
			parts = append(parts, factValue(e))
		}
		if len(parts) == 0 {
			return "(none)"
		}
		return strings.Join(parts, ", ")
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}

func title(eventType string) string {
	if e, ok := Lookup(eventType); ok {
		return e.Title
	}
	return eventType
}

// slackEscape escapes the three characters Slack's mrkdwn reserves.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// slackMessage is a Block Kit message for a Slack incoming webhook.
func slackMessage(eventID, eventType, ts string, data json.RawMessage) map[string]any {
	t := truncate(title(eventType), maxTitle)
	fs := facts(data)
	blocks := []any{
		map[string]any{"type": "header", "text": map[string]any{"type": "plain_text", "text": t, "emoji": false}},
	}
	if len(fs) > 0 {
		fields := make([]any, len(fs))
		for i, f := range fs {
			fields[i] = map[string]any{"type": "mrkdwn", "text": "*" + slackEscape(f.name) + "*\n" + slackEscape(f.value)}
		}
		blocks = append(blocks, map[string]any{"type": "section", "fields": fields})
	}
	blocks = append(blocks, map[string]any{"type": "context", "elements": []any{
		map[string]any{"type": "mrkdwn", "text": "`" + slackEscape(eventType) + "` · event " + eventID + " · " + ts},
	}})
	return map[string]any{"text": t + " (" + eventType + ")", "blocks": blocks}
}

// teamsMessage is an Adaptive Card (1.4) in the message envelope Teams
// incoming webhooks and Workflows accept.
func teamsMessage(eventID, eventType, ts string, data json.RawMessage) map[string]any {
	t := truncate(title(eventType), maxTitle)
	body := []any{
		map[string]any{"type": "TextBlock", "text": t, "weight": "Bolder", "size": "Medium", "wrap": true},
	}
	if fs := facts(data); len(fs) > 0 {
		list := make([]any, len(fs))
		for i, f := range fs {
			list[i] = map[string]any{"title": f.name, "value": f.value}
		}
		body = append(body, map[string]any{"type": "FactSet", "facts": list})
	}
	body = append(body, map[string]any{"type": "TextBlock", "text": eventType + " · event " + eventID + " · " + ts,
		"isSubtle": true, "size": "Small", "wrap": true})
	return map[string]any{
		"type": "message",
		"attachments": []any{map[string]any{
			"contentType": "application/vnd.microsoft.card.adaptive",
			"contentUrl":  nil,
			"content": map[string]any{
				"$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
				"type":    "AdaptiveCard",
				"version": "1.4",
				"body":    body,
			},
		}},
	}
}
