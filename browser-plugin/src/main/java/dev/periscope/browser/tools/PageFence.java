package dev.periscope.browser.tools;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The boundary markers around the text a page wrote, so that a page cannot pass its words off as
 * the tool's. A block of page text in a result reads
 *
 * <pre>
 * &lt;&lt;page-content nonce=K7Q2M4XD3A&gt;&gt;
 * ...what the page says...
 * &lt;&lt;/page-content nonce=K7Q2M4XD3A&gt;&gt;
 * </pre>
 *
 * each marker on a line of its own, with the nonce of the agent session's browser session: random,
 * made when the session's first result is, and new after {@code browser_reset} or a restart of the
 * host. Inside the block, any sequence that looks like a marker, whatever its nonce, case, spacing,
 * zero-width characters or look-alike letters and brackets, loses its opening brackets: they become
 * {@code ‹‹} ({@link #neutralize}), so the page can neither close the fence nor open one of its
 * own. Strings of the structured form are neutralized alike, and the result says under {@code
 * page_content} that it is fenced and with which nonce ({@link #json}).
 */
final class PageFence {
  /** What the page's copy of a marker starts with instead of {@code <<}. */
  static final String ALTERED = "‹‹";

  private static final SecureRandom RANDOM = new SecureRandom();
  private static final String BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
  private static final int NONCE_CHARS = 10;

  private final String nonce;

  PageFence(String nonce) {
    this.nonce = nonce;
  }

  /** A fence with a fresh random nonce of {@value #NONCE_CHARS} base32 characters (50 bits). */
  static PageFence random() {
    StringBuilder b = new StringBuilder(NONCE_CHARS);
    for (int i = 0; i < NONCE_CHARS; i++) {
      b.append(BASE32.charAt(RANDOM.nextInt(BASE32.length())));
    }
    return new PageFence(b.toString());
  }

  String nonce() {
    return nonce;
  }

  String open() {
    return "<<page-content nonce=" + nonce + ">>";
  }

  String close() {
    return "<</page-content nonce=" + nonce + ">>";
  }

  /**
   * {@code block}, neutralized, between the markers, each on its own line. Our own words may be in
   * the block (a heading, a ref): they never look like a marker, so neutralizing the whole block
   * alters only what the page wrote.
   */
  String around(String block) {
    String inner = neutralize(block);
    return open() + "\n" + inner + (inner.endsWith("\n") ? "" : "\n") + close();
  }

  /** What the structured form of a fenced result says of it, under {@code page_content}. */
  Map<String, Object> json() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("fenced", true);
    m.put("nonce", nonce);
    return m;
  }

  // The brackets a marker could be written with: ASCII, full-width, small, angle and guillemet
  // look-alikes, and (see openerBefore) HTML's escapes of "<" that a page's text may show
  // literally.
  // "‹" is one too: a neutralized marker, which starts with "‹‹", is neutralized to itself.
  private static final String OPENERS =
      "<\uFF1C\uFE64\u3008\u2329\u27E8\u27EA\u300A\u00AB\u226A\u1438\u276C\u276E\u2039";

  private static final String SLASHES = "/\uFF0F\u2215\u2044\u29F8\u2571\\";

  /** Each letter of "page" and "content" with the look-alikes a reader would take for it. */
  private static final Map<Character, String> LETTERS =
      Map.of(
          'p', "[p\u0440\u03C1\uFF50]",
          'a', "[a\u0430\u03B1\uFF41]",
          'g', "[g\u0261\uFF47]",
          'e', "[e\u0435\u03B5\uFF45]",
          'c', "[c\u0441\u03F2\uFF43]",
          'o', "[o0\u043E\u03BF\uFF4F]",
          'n', "[n\u0578\u03B7\uFF4E]",
          't', "[t\u0442\u03C4\uFF54]");

  private static String word(String w) {
    List<String> parts = new ArrayList<>();
    for (char c : w.toCharArray()) {
      parts.add(LETTERS.get(c));
    }
    return String.join("\\p{Cf}*", parts);
  }

  /**
   * The name of a marker: "page" and "content" with anything of spaces, dashes, dots, underscores
   * and invisible characters between them. Only character classes repeat in it, never a group, so
   * matching is linear and does not recurse on a long page.
   */
  private static final Pattern NAME =
      Pattern.compile(
          word("page") + "[\\s\\p{Z}\\p{Cf}\\-_.:\\u2010-\\u2015\\u2212\\u00B7]*" + word("content"),
          Pattern.CASE_INSENSITIVE | Pattern.UNICODE_CASE);

  /**
   * {@code text} with the brackets (and slash) of every marker-like sequence replaced by {@value
   * #ALTERED} (and {@code /}): {@code <</PAGE - content nonce=X>>} becomes {@code ‹‹/PAGE - content
   * nonce=X>>}. A marker-like sequence is a marker's name preceded by one or more brackets, then an
   * optional slash, spaces and invisible characters anywhere between them. Other text, {@code <<}
   * elsewhere included, is left as it is. Linear in the text's length.
   */
  static String neutralize(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    Matcher m = NAME.matcher(text);
    StringBuilder out = null;
    int copied = 0;
    while (m.find()) {
      int name = m.start();
      // Backwards from the name: gaps, an optional slash, gaps, then at least one bracket.
      int i = skipGap(text, name, copied);
      boolean slash = i > copied && SLASHES.indexOf(text.charAt(i - 1)) >= 0;
      if (slash) {
        i = skipGap(text, i - 1, copied);
      }
      int start = -1;
      for (int o = openerBefore(text, i, copied); o >= 0; o = openerBefore(text, i, copied)) {
        start = o;
        i = skipGap(text, o, copied);
      }
      if (start < 0) {
        continue;
      }
      if (out == null) {
        out = new StringBuilder(text.length() + 8);
      }
      out.append(text, copied, start).append(ALTERED).append(slash ? "/" : "");
      copied = name;
    }
    if (out == null) {
      return text;
    }
    return out.append(text, copied, text.length()).toString();
  }

  /** Where the spaces and invisible characters that end just before {@code end} begin. */
  private static int skipGap(String text, int end, int floor) {
    int i = end;
    while (i > floor) {
      char c = text.charAt(i - 1);
      if (!Character.isWhitespace(c)
          && !Character.isSpaceChar(c)
          && Character.getType(c) != Character.FORMAT) {
        break;
      }
      i--;
    }
    return i;
  }

  /**
   * Where a bracket that ends just before {@code end} begins, or -1: a bracket character, or HTML's
   * {@code &lt;}, {@code &lt}, {@code &#60;} or {@code &#x3c;} written out.
   */
  private static int openerBefore(String text, int end, int floor) {
    if (end <= floor) {
      return -1;
    }
    if (OPENERS.indexOf(text.charAt(end - 1)) >= 0) {
      return end - 1;
    }
    int j = text.charAt(end - 1) == ';' ? end - 1 : end;
    if (j - 3 >= floor && text.regionMatches(true, j - 3, "&lt", 0, 3)) {
      return j - 3;
    }
    int k = j;
    while (k > floor && k > j - 7 && Character.digit(text.charAt(k - 1), 16) >= 0) {
      k--;
    }
    if (k == j) {
      return -1;
    }
    String digits = text.substring(k, j);
    if (k - 3 >= floor
        && (text.charAt(k - 1) == 'x' || text.charAt(k - 1) == 'X')
        && text.charAt(k - 2) == '#'
        && text.charAt(k - 3) == '&'
        && Integer.parseInt(digits, 16) == 0x3C) {
      return k - 3;
    }
    if (k - 2 >= floor
        && digits.chars().allMatch(Character::isDigit)
        && text.charAt(k - 1) == '#'
        && text.charAt(k - 2) == '&'
        && Integer.parseInt(digits) == 60) {
      return k - 2;
    }
    return -1;
  }

  /**
   * The structured value {@code value} with every string in it, in maps and lists at any depth,
   * neutralized, map keys too (a table's column names are the page's); our own keys and values
   * (ids, refs) never look like a marker and stay as they are.
   */
  @SuppressWarnings("unchecked")
  static <T> T neutralizeAll(T value) {
    if (value instanceof String s) {
      return (T) neutralize(s);
    }
    if (value instanceof Map<?, ?> map) {
      Map<Object, Object> out = new LinkedHashMap<>();
      map.forEach(
          (k, v) -> out.put(k instanceof String key ? neutralize(key) : k, neutralizeAll(v)));
      return (T) out;
    }
    if (value instanceof List<?> list) {
      List<Object> out = new ArrayList<>(list.size());
      list.forEach(v -> out.add(neutralizeAll(v)));
      return (T) out;
    }
    return value;
  }

  /**
   * The fence of each agent session's browser session, kept in memory: made at the session's first
   * result, forgotten when its browser session is discarded ({@code browser_reset}) or the agent
   * session ends, so the next browser session gets a nonce of its own.
   */
  static final class Sessions {
    private final Map<String, PageFence> fences = new java.util.HashMap<>();

    synchronized PageFence of(String agentSessionId) {
      return fences.computeIfAbsent(agentSessionId, id -> random());
    }

    synchronized void forget(String agentSessionId) {
      fences.remove(agentSessionId);
    }
  }
}
