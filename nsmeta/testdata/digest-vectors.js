// Generates digest-vectors.json independently of the Go code, from
// ECMAScript's own JSON.stringify and Array.prototype.sort, which compares
// strings as UTF-16 code units: together, RFC 8785 for objects of strings.
//
//	node digest-vectors.js > digest-vectors.json
const crypto = require("crypto");

const object = (m) =>
  "{" + Object.keys(m || {}).sort().map((k) => JSON.stringify(k) + ":" + JSON.stringify(m[k])).join(",") + "}";
const canonical = (md) => '{"annotations":' + object(md.annotations) + ',"labels":' + object(md.labels) + "}";

const vectors = [
  { name: "empty", metadata: {} },
  { name: "empty maps", metadata: { labels: {}, annotations: {} } },
  { name: "one label", metadata: { labels: { team: "payments" } } },
  { name: "one annotation", metadata: { annotations: { "my.org.io/observability": "Enabled" } } },
  {
    name: "sorted keys",
    metadata: {
      labels: { "tier": "gold", "app.kubernetes.io/name": "x", "B": "upper", "a-b": "1", "a.b": "2", "a_b": "3", "a": "4" },
      annotations: { "10": "ten", "9": "nine", "1": "one" },
    },
  },
  {
    name: "escaping",
    metadata: {
      annotations: {
        quote: 'say "hi"',
        backslash: "C:\\path\\",
        controls: "\b\t\n\f\r\u0000\u0001\u001f",
        "not escaped": "\u007f </script> & ' / \u2028\u2029",
        "key\"with\\escapes\n": "v",
      },
    },
  },
  {
    name: "unicode values",
    metadata: {
      labels: { team: "payments" },
      annotations: { "example.com/owner": "ñandú 日本語 😀", "example.com/note": "Grüße, ☃" },
    },
  },
  {
    // RFC 8785, section 3.2.3: UTF-16 order puts U+1F600 (surrogates D83D DE00)
    // before U+FB33, where UTF-8 byte order puts it after.
    name: "utf-16 key order",
    metadata: {
      annotations: {
        "\u20ac": "Euro Sign",
        "\r": "Carriage Return",
        "\ufb33": "Hebrew Letter Dalet With Dagesh",
        "1": "One",
        "\ud83d\ude00": "Emoji: Grinning Face",
        "\u0080": "Control",
        "\u00f6": "Latin Small Letter O With Diaeresis",
      },
    },
  },
];

for (const v of vectors) {
  v.canonical = canonical(v.metadata);
  v.digest = "sha256:" + crypto.createHash("sha256").update(v.canonical, "utf8").digest("hex");
}
process.stdout.write(JSON.stringify(vectors, null, 2) + "\n");
