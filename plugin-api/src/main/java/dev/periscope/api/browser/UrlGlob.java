package dev.periscope.api.browser;

import java.util.ArrayList;
import java.util.List;

/**
 * A glob over a whole URL, as Playwright spells one: {@code **} is any run of characters ({@code
 * **}{@code /} also none, so {@code /**}{@code /x} matches {@code /x}), {@code *} any run without a
 * {@code /}, {@code {a,b}} either alternative; a backslash makes the character after it itself
 * ({@code \*} a star); every other character, {@code ?} included, is itself. A URL longer than
 * {@value #MAX_URL_CHARS} characters matches no glob. {@code **}{@code /checkout/*} matches {@code
 * https://shop.example/checkout/payment}. A bare origin is the URL of its root, as a browser spells
 * it: {@code https://shop.example} matches {@code https://shop.example/}. Matching takes time in
 * proportion to the URL's length times the glob's, whatever the glob (no backtracking).
 */
public final class UrlGlob {
  /** The most characters a glob may have. */
  public static final int MAX_CHARS = 1_000;

  /** The most whole-URL alternatives its braces may spell. */
  public static final int MAX_ALTERNATIVES = 64;

  /** The longest URL a glob is matched against. */
  public static final int MAX_URL_CHARS = 16_384;

  /** An http(s) origin with nothing after it and nothing to expand: its root's URL ends in /. */
  private static final java.util.regex.Pattern BARE_ORIGIN =
      java.util.regex.Pattern.compile("(?i)https?://[^/*{}?#\\s]+");

  private static final char STAR = '\uE000';
  private static final char STARS = '\uE001';

  private final String glob;
  private final List<String> alternatives;

  private UrlGlob(String glob, List<String> alternatives) {
    this.glob = glob;
    this.alternatives = alternatives;
  }

  /**
   * The glob {@code text} spells, else {@code BROWSER_INVALID_ARGUMENT} naming {@code field} and
   * what is wrong: empty, too long, a brace not closed or not opened, braces inside braces, too
   * many alternatives.
   */
  public static UrlGlob of(String text, String field) {
    if (text == null || text.isBlank()) {
      throw invalid(field, "a URL glob is required (for example **/checkout/*)");
    }
    if (text.length() > MAX_CHARS) {
      throw invalid(field, "a URL glob is at most " + MAX_CHARS + " characters");
    }
    if (BARE_ORIGIN.matcher(text).matches()) {
      return of(text + "/", field);
    }
    List<StringBuilder> spelled = new ArrayList<>(List.of(new StringBuilder()));
    List<StringBuilder> group = null;
    List<String> choices = null;
    StringBuilder choice = null;
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == STAR || c == STARS) {
        throw invalid(field, "'" + text + "' holds a character a URL cannot");
      }
      if (c == '\\' && i + 1 < text.length()) {
        // An escaped character is itself: \* a star, \{ a brace, \, a comma, \\ a backslash.
        char literal = text.charAt(++i);
        if (literal == STAR || literal == STARS) {
          throw invalid(field, "'" + text + "' holds a character a URL cannot");
        }
        if (choices != null) {
          choice.append(literal);
        } else {
          spelled.forEach(b -> b.append(literal));
        }
        continue;
      }
      if (c == '{') {
        if (choices != null) {
          throw invalid(field, "'" + text + "' opens a brace inside a brace");
        }
        choices = new ArrayList<>();
        choice = new StringBuilder();
        continue;
      }
      if (c == '}') {
        if (choices == null) {
          throw invalid(field, "'" + text + "' closes a brace it did not open");
        }
        choices.add(choice.toString());
        group = new ArrayList<>();
        for (StringBuilder before : spelled) {
          for (String option : choices) {
            group.add(new StringBuilder(before).append(option));
          }
        }
        if (group.size() > MAX_ALTERNATIVES) {
          throw invalid(
              field, "'" + text + "' spells more than " + MAX_ALTERNATIVES + " alternatives");
        }
        spelled = group;
        choices = null;
        continue;
      }
      char token = c;
      if (c == '*') {
        boolean two = i + 1 < text.length() && text.charAt(i + 1) == '*';
        // **/ outside braces is any run that ends in a /, or nothing: two alternatives.
        if (two && choices == null && i + 2 < text.length() && text.charAt(i + 2) == '/') {
          List<StringBuilder> both = new ArrayList<>();
          for (StringBuilder before : spelled) {
            both.add(new StringBuilder(before));
            both.add(new StringBuilder(before).append(STARS).append('/'));
          }
          if (both.size() > MAX_ALTERNATIVES) {
            throw invalid(
                field, "'" + text + "' spells more than " + MAX_ALTERNATIVES + " alternatives");
          }
          spelled = both;
          i += 2;
          continue;
        }
        token = two ? STARS : STAR;
        i += two ? 1 : 0;
      }
      if (choices != null) {
        if (c == ',') {
          choices.add(choice.toString());
          choice = new StringBuilder();
        } else {
          choice.append(token);
        }
      } else {
        for (StringBuilder b : spelled) {
          b.append(token);
        }
      }
    }
    if (choices != null) {
      throw invalid(field, "'" + text + "' leaves a brace open");
    }
    return new UrlGlob(text, spelled.stream().map(StringBuilder::toString).toList());
  }

  /** Whether the whole of {@code url} matches. */
  public boolean matches(String url) {
    if (url == null || url.length() > MAX_URL_CHARS) {
      return false;
    }
    for (String tokens : alternatives) {
      if (matches(tokens, url)) {
        return true;
      }
    }
    return false;
  }

  /** Runs the glob as a set of positions reached, one character of the URL at a time. */
  private static boolean matches(String tokens, String url) {
    int m = tokens.length();
    boolean[] at = new boolean[m + 1];
    at[0] = true;
    skipStars(tokens, at);
    for (int n = 0; n < url.length(); n++) {
      char c = url.charAt(n);
      boolean[] next = new boolean[m + 1];
      boolean any = false;
      for (int i = 0; i < m; i++) {
        if (!at[i]) {
          continue;
        }
        char t = tokens.charAt(i);
        if (t == STARS || (t == STAR && c != '/')) {
          next[i] = true;
          any = true;
        } else if (t == c) {
          next[i + 1] = true;
          any = true;
        }
      }
      if (!any) {
        return false;
      }
      skipStars(tokens, next);
      at = next;
    }
    return at[m];
  }

  /** A star matches nothing too: whatever reaches it reaches what follows it. */
  private static void skipStars(String tokens, boolean[] at) {
    for (int i = 0; i < tokens.length(); i++) {
      char t = tokens.charAt(i);
      if (at[i] && (t == STAR || t == STARS)) {
        at[i + 1] = true;
      }
    }
  }

  @Override
  public String toString() {
    return glob;
  }

  private static BrowserException invalid(String field, String rule) {
    return ActionChecks.invalid(field + ": " + rule);
  }
}
