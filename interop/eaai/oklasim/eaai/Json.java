package oklasim.eaai;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The little JSON the agent protocol needs, without a library: quoting strings for the messages we
 * write, and a small reader for the agent's answers (objects, arrays, strings, numbers, booleans, null).
 */
final class Json {
    private final String text;
    private int at;

    private Json(String text) {
        this.text = text;
    }

    /** One JSON value from a line; IllegalArgumentException when the line is not JSON. */
    static Object parse(String line) {
        Json reader = new Json(line);
        Object value = reader.value();
        reader.blanks();
        if (reader.at != line.length()) throw reader.fail("text after the value");
        return value;
    }

    /** A JSON string literal. */
    static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') out.append('\\').append(c);
            else if (c < 0x20) out.append(String.format("\\u%04x", (int) c));
            else out.append(c);
        }
        return out.append('"').toString();
    }

    private Object value() {
        blanks();
        if (at >= text.length()) throw fail("a value");
        char c = text.charAt(at);
        if (c == '{') return object();
        if (c == '[') return array();
        if (c == '"') return string();
        if (text.startsWith("true", at)) { at += 4; return Boolean.TRUE; }
        if (text.startsWith("false", at)) { at += 5; return Boolean.FALSE; }
        if (text.startsWith("null", at)) { at += 4; return null; }
        return number();
    }

    private Map<String, Object> object() {
        Map<String, Object> out = new LinkedHashMap<>();
        at++;
        blanks();
        if (peek('}')) return out;
        do {
            blanks();
            String key = string();
            blanks();
            expect(':');
            out.put(key, value());
            blanks();
        } while (next(','));
        expect('}');
        return out;
    }

    private List<Object> array() {
        List<Object> out = new ArrayList<>();
        at++;
        blanks();
        if (peek(']')) return out;
        do {
            out.add(value());
            blanks();
        } while (next(','));
        expect(']');
        return out;
    }

    private String string() {
        expect('"');
        StringBuilder out = new StringBuilder();
        while (at < text.length() && text.charAt(at) != '"') {
            char c = text.charAt(at++);
            if (c != '\\') { out.append(c); continue; }
            if (at >= text.length()) break;
            char e = text.charAt(at++);
            switch (e) {
                case 'n': out.append('\n'); break;
                case 't': out.append('\t'); break;
                case 'r': out.append('\r'); break;
                case 'b': out.append('\b'); break;
                case 'f': out.append('\f'); break;
                case 'u': out.append((char) Integer.parseInt(text.substring(at, at + 4), 16)); at += 4; break;
                default: out.append(e);
            }
        }
        expect('"');
        return out.toString();
    }

    private Number number() {
        int start = at;
        while (at < text.length() && "+-0123456789.eE".indexOf(text.charAt(at)) >= 0) at++;
        if (start == at) throw fail("a value");
        String digits = text.substring(start, at);
        try {
            return digits.matches("-?\\d+") ? (Number) Long.valueOf(digits) : (Number) Double.valueOf(digits);
        } catch (NumberFormatException e) {
            throw fail("a number");
        }
    }

    private void blanks() {
        while (at < text.length() && Character.isWhitespace(text.charAt(at))) at++;
    }

    private boolean peek(char c) {
        if (at < text.length() && text.charAt(at) == c) { at++; return true; }
        return false;
    }

    private boolean next(char c) {
        blanks();
        return peek(c);
    }

    private void expect(char c) {
        if (!peek(c)) throw fail("'" + c + "'");
    }

    private IllegalArgumentException fail(String wanted) {
        return new IllegalArgumentException("expected " + wanted + " at column " + (at + 1) + " of: " + text);
    }
}
