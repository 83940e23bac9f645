package dev.periscope.api.host;

import java.util.Arrays;

/**
 * A secret value. Its {@code toString}, {@code equals} and {@code hashCode} never reveal or derive
 * from the value, it is not {@link java.io.Serializable}, and the only way to read it is {@link
 * #reveal()}, which the browser plugin calls once, at the moment it fills a field.
 */
public final class Secret {
  private final char[] value;

  private Secret(char[] value) {
    this.value = value;
  }

  public static Secret of(String value) {
    return new Secret(value.toCharArray());
  }

  public static Secret of(char[] value) {
    return new Secret(Arrays.copyOf(value, value.length));
  }

  public String reveal() {
    return new String(value);
  }

  public int length() {
    return value.length;
  }

  public boolean isEmpty() {
    return value.length == 0;
  }

  /** The shortest tail of a text that is taken for a cut-off copy of the secret. */
  static final int SHORTEST_CUT_COPY = 6;

  /**
   * Every copy of the value, plain or with any of its characters percent-encoded (either hex case,
   * space as +).
   */
  private java.util.regex.Pattern copies;

  /**
   * The text with every copy of the secret replaced by {@code marker}: as is, and in every form a
   * URL may carry it (any of its characters percent-encoded as UTF-8, in either hex case, a space
   * also as {@code +}). A text that ends in the secret's first characters (at least {@value
   * #SHORTEST_CUT_COPY}) lost the rest to a cut: that tail is replaced too. Nothing of the value
   * leaves this object.
   */
  public String redactFrom(String text, String marker) {
    if (text == null || value.length == 0 || text.isEmpty()) {
      return text;
    }
    java.util.regex.Matcher m = copies().matcher(text);
    String result =
        m.find() ? m.replaceAll(java.util.regex.Matcher.quoteReplacement(marker)) : text;
    for (int n = value.length - 1; n >= SHORTEST_CUT_COPY; n--) {
      if (result.regionMatches(result.length() - n, new String(value, 0, n), 0, n)) {
        return result.substring(0, result.length() - n) + marker;
      }
    }
    return result;
  }

  private synchronized java.util.regex.Pattern copies() {
    if (copies == null) {
      StringBuilder regex = new StringBuilder();
      new String(value)
          .codePoints()
          .forEach(
              cp -> {
                String ch = new String(Character.toChars(cp));
                regex.append("(?:").append(java.util.regex.Pattern.quote(ch));
                StringBuilder encoded = new StringBuilder();
                for (byte b : ch.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
                  encoded.append(String.format("%%%02X", b & 0xff));
                }
                regex
                    .append("|(?i:")
                    .append(java.util.regex.Pattern.quote(encoded.toString()))
                    .append(")");
                if (cp == ' ') {
                  regex.append("|\\+");
                }
                regex.append(")");
              });
      copies = java.util.regex.Pattern.compile(regex.toString());
    }
    return copies;
  }

  @Override
  public String toString() {
    return "Secret[redacted]";
  }
}
