package dev.periscope.browser.runtime;

import dev.periscope.api.host.Secret;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The forms one secret may take in what a request carries, and whether a request carries it: plain,
 * percent-encoded (as a URL or a form encodes it, any characters, either hex case, a space as
 * {@code +}, twice over), base64 (standard and URL-safe, at any of the three alignments inside a
 * longer text, padded or not), hex (either case) and reversed. What is looked at is read as bytes
 * (a text as its UTF-8), so a form inside a binary body is found as well.
 *
 * <p>A host name is compared without regard to case and with its dots left out, as DNS carries it:
 * only forms that survive lower case are looked for there (plain, reversed, hex, and base64 in
 * lower case). A secret cut into pieces across requests is not found: each request is judged on its
 * own. Nothing of the secret leaves this object.
 */
final class SecretForms {
  /** The shortest form looked for: a shorter one would be found in ordinary traffic. */
  static final int SHORTEST_FORM = 4;

  /** Forms compared byte for byte (as ISO-8859-1 text: one char per byte). */
  private final List<String> exact;

  /** Forms compared in lower case: hex. */
  private final List<String> lower;

  /** Forms a host name may carry, in lower case. */
  private final List<String> hostForms;

  SecretForms(Secret secret) {
    String value = secret.reveal();
    byte[] utf8 = value.getBytes(StandardCharsets.UTF_8);
    byte[] reversed =
        new StringBuilder(value).reverse().toString().getBytes(StandardCharsets.UTF_8);
    Set<String> e = new LinkedHashSet<>();
    e.add(latin1(utf8));
    e.add(latin1(reversed));
    for (byte[] b : List.of(utf8, reversed)) {
      for (int k = 0; k < 3; k++) {
        String core = base64Core(b, k);
        e.add(core);
        e.add(core.replace('+', '-').replace('/', '_'));
      }
    }
    Set<String> l = new LinkedHashSet<>();
    l.add(HexFormat.of().formatHex(utf8));
    l.add(HexFormat.of().formatHex(reversed));
    Set<String> h = new LinkedHashSet<>(l);
    h.add(latin1(utf8).toLowerCase(Locale.ROOT));
    h.add(latin1(reversed).toLowerCase(Locale.ROOT));
    for (String form : e) {
      h.add(form.toLowerCase(Locale.ROOT));
    }
    exact = longEnough(e);
    lower = longEnough(l);
    hostForms = longEnough(h);
  }

  private static List<String> longEnough(Set<String> forms) {
    List<String> kept = new ArrayList<>();
    for (String f : forms) {
      if (f.length() >= SHORTEST_FORM) {
        kept.add(f);
      }
    }
    return List.copyOf(kept);
  }

  /**
   * The base64 characters that depend on {@code b} alone when it starts {@code k} bytes after a
   * multiple of three in a longer text: the characters that also hold bits of its neighbours are
   * left out.
   */
  static String base64Core(byte[] b, int k) {
    byte[] shifted = new byte[k + b.length];
    System.arraycopy(b, 0, shifted, k, b.length);
    String encoded = Base64.getEncoder().withoutPadding().encodeToString(shifted);
    int first = (8 * k + 5) / 6;
    int end = (8 * (k + b.length)) / 6;
    return end > first ? encoded.substring(first, end) : "";
  }

  /** Whether {@code text} (a URL, a header, a message) carries the secret in any form. */
  boolean foundIn(String text) {
    return text != null && !text.isEmpty() && foundIn(text.getBytes(StandardCharsets.UTF_8));
  }

  /** Whether {@code bytes} (a body, a binary message) carry the secret in any form. */
  boolean foundIn(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      return false;
    }
    // As it is, and decoded once and twice over, a + as itself or as a space.
    Set<String> seen = new LinkedHashSet<>();
    List<String> round = List.of(latin1(bytes));
    for (int depth = 0; depth <= 2 && !round.isEmpty(); depth++) {
      List<String> next = new ArrayList<>();
      for (String text : round) {
        if (seen.add(text)) {
          if (carries(text)) {
            return true;
          }
          next.add(percentDecoded(text, false));
          next.add(percentDecoded(text, true));
        }
      }
      round = next;
    }
    return false;
  }

  /**
   * Whether a host name carries the secret: compared in lower case and also with its dots left out
   * (a form spread over several labels).
   */
  boolean foundInHost(String host) {
    if (host == null || host.isEmpty()) {
      return false;
    }
    String h = percentDecoded(host, false).toLowerCase(Locale.ROOT);
    String joined = h.replace(".", "");
    for (String f : hostForms) {
      if (h.contains(f) || joined.contains(f)) {
        return true;
      }
    }
    return false;
  }

  private boolean carries(String text) {
    for (String f : exact) {
      if (text.contains(f)) {
        return true;
      }
    }
    String lowered = null;
    for (String f : lower) {
      if (lowered == null) {
        lowered = text.toLowerCase(Locale.ROOT);
      }
      if (lowered.contains(f)) {
        return true;
      }
    }
    return false;
  }

  /**
   * {@code text} with every {@code %XX} turned into its byte (as an ISO-8859-1 char), and {@code +}
   * into a space when {@code plusIsSpace}; anything else as it is.
   */
  static String percentDecoded(String text, boolean plusIsSpace) {
    if (text.indexOf('%') < 0 && !(plusIsSpace && text.indexOf('+') >= 0)) {
      return text;
    }
    StringBuilder out = new StringBuilder(text.length());
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '%' && i + 2 < text.length() && hex(text.charAt(i + 1)) >= 0) {
        int lo = hex(text.charAt(i + 2));
        if (lo >= 0) {
          out.append((char) (hex(text.charAt(i + 1)) * 16 + lo));
          i += 2;
          continue;
        }
      }
      out.append(plusIsSpace && c == '+' ? ' ' : c);
    }
    return out.toString();
  }

  private static int hex(char c) {
    return c < 128 ? Character.digit(c, 16) : -1;
  }

  private static String latin1(byte[] b) {
    return new String(b, StandardCharsets.ISO_8859_1);
  }
}
