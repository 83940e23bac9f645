package dev.periscope.browser.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.host.OriginPattern;
import dev.periscope.api.host.Secret;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/**
 * The forms a secret takes on the wire ({@link SecretForms}) and the session's judge ({@link
 * SecretEgress}): every encoding is found wherever it sits, near misses are not.
 */
class SecretFormsTest {
  static final String SECRET = "Cn4ry-7f3a p@ss/w!rd+é";
  static final SecretForms FORMS = new SecretForms(Secret.of(SECRET));

  static byte[] utf8(String s) {
    return s.getBytes(StandardCharsets.UTF_8);
  }

  static String reversed(String s) {
    return new StringBuilder(s).reverse().toString();
  }

  /** Every form the guard promises, each inside a longer text at every alignment. */
  static List<String> encodings(String s) {
    byte[] b = utf8(s);
    return List.of(
        s,
        URLEncoder.encode(s, StandardCharsets.UTF_8),
        java.util.regex.Pattern.compile("%[0-9A-F]{2}")
            .matcher(URLEncoder.encode(s, StandardCharsets.UTF_8).replace("+", "%20"))
            .replaceAll(m -> m.group().toLowerCase(Locale.ROOT)),
        URLEncoder.encode(URLEncoder.encode(s, StandardCharsets.UTF_8), StandardCharsets.UTF_8),
        Base64.getEncoder().encodeToString(b),
        Base64.getUrlEncoder().withoutPadding().encodeToString(b),
        HexFormat.of().formatHex(b),
        HexFormat.of().withUpperCase().formatHex(b),
        reversed(s),
        URLEncoder.encode(reversed(s), StandardCharsets.UTF_8));
  }

  @Test
  void everyFormIsFoundAtEveryAlignmentInsideLongerText() {
    for (String prefix : List.of("", "a", "ab", "abc")) {
      // base64 of a longer text: the secret sits at each of the three alignments
      byte[] whole = utf8("user=alice&pw=" + prefix + SECRET + "&x=1");
      assertTrue(FORMS.foundIn(Base64.getEncoder().encode(whole)), "base64 after " + prefix);
      assertTrue(
          FORMS.foundIn(Base64.getUrlEncoder().encodeToString(whole)), "base64url after " + prefix);
      for (String form : encodings(SECRET)) {
        assertTrue(FORMS.foundIn("https://decoy.test/c?" + prefix + form + "#"), form);
        assertTrue(FORMS.foundIn(utf8("{\"v\":\"" + prefix + form + "\"}")), form);
      }
    }
  }

  @Test
  void nearMissesAndOtherCaseDoNotMatch() {
    assertFalse(FORMS.foundIn(SECRET.toLowerCase(Locale.ROOT)), "plain text is case-sensitive");
    assertFalse(FORMS.foundIn(SECRET.toUpperCase(Locale.ROOT)));
    assertFalse(FORMS.foundIn(SECRET.substring(1)), "a part is not the secret");
    assertFalse(FORMS.foundIn(SECRET.substring(0, SECRET.length() - 1)));
    assertFalse(FORMS.foundIn(SECRET.replace('7', '8')), "one character off");
    assertFalse(FORMS.foundIn(Base64.getEncoder().encodeToString(utf8(SECRET.substring(2)))));
    assertFalse(
        FORMS.foundIn(Base64.getEncoder().encodeToString(utf8(SECRET)).toLowerCase(Locale.ROOT)),
        "base64 is case-sensitive");
    assertFalse(FORMS.foundIn(HexFormat.of().formatHex(utf8(SECRET)).substring(2)));
    assertFalse(FORMS.foundIn(""));
    assertFalse(FORMS.foundIn((byte[]) null));
    // Cut in pieces across two texts: each on its own does not carry it (out of scope, as said).
    assertFalse(FORMS.foundIn(SECRET.substring(0, 8)));
    assertFalse(FORMS.foundIn(SECRET.substring(8)));
  }

  @Test
  void hostileInputIsHandled() {
    assertFalse(FORMS.foundIn("%%%%%zz%4%"));
    assertFalse(FORMS.foundIn("%"));
    assertFalse(FORMS.foundIn(new byte[] {(byte) 0xff, 0, (byte) 0xc3, '%', '4'}));
    String big = "x".repeat(2_000_000) + SECRET;
    assertTrue(FORMS.foundIn(utf8(big)), "found at the end of a large body");
    assertEquals("ab", SecretForms.percentDecoded("%61b", false));
    assertEquals("a b", SecretForms.percentDecoded("a+b", true));
    assertEquals("%6", SecretForms.percentDecoded("%6", false));
  }

  @Test
  void aHostCarriesItInAnyCaseAndAcrossLabels() {
    String hex = HexFormat.of().formatHex(utf8(SECRET));
    assertTrue(FORMS.foundInHost(hex + ".decoy.test"));
    assertTrue(FORMS.foundInHost(hex.toUpperCase(Locale.ROOT) + ".decoy.test"));
    assertTrue(FORMS.foundInHost(hex.substring(0, 30) + "." + hex.substring(30) + ".decoy.test"));
    SecretForms word = new SecretForms(Secret.of("Hunter2Hunter"));
    assertTrue(word.foundInHost("hunter2hunter.decoy.test"), "DNS has no case");
    String b64 = Base64.getUrlEncoder().withoutPadding().encodeToString(utf8("Hunter2Hunter"));
    assertTrue(word.foundInHost(b64.toLowerCase(Locale.ROOT) + ".decoy.test"));
    assertFalse(word.foundInHost("hunter2hunte.decoy.test"));
    assertFalse(word.foundInHost("decoy.test"));
  }

  @Test
  void shortSecretsKeepOnlyFormsLongEnoughToMean() {
    SecretForms pin = new SecretForms(Secret.of("4711"));
    assertTrue(pin.foundIn("pin=4711"));
    assertTrue(pin.foundIn("pin=1174"), "reversed");
    assertTrue(pin.foundIn("34373131"), "hex");
    assertFalse(pin.foundIn("pin=471"));
    assertEquals("", SecretForms.base64Core(new byte[0], 2));
  }

  @Test
  void theJudgeRefusesOtherOriginsAndNeverSaysTheValue() {
    SecretEgress egress = new SecretEgress();
    egress.add("bank", Secret.of(SECRET), List.of(OriginPattern.parse("https://bank.test")));
    egress.add("typed-password", Secret.of("Hunter2Hunter"), SecretEgress.origins("null"));
    String b64 = Base64.getEncoder().encodeToString(utf8(SECRET));
    assertEquals(
        Optional.empty(),
        egress.refusal("https://bank.test/login?pw=" + b64, Map.of(), utf8(SECRET)),
        "its own origin gets it untouched");
    assertEquals(
        Optional.empty(), egress.refusal("https://decoy.test/ok", Map.of("a", "b"), utf8("x")));
    assertEquals(Optional.empty(), egress.refusal("data:text/plain," + SECRET, Map.of(), null));
    for (var refused :
        List.of(
            egress.refusal("https://bank.test.decoy.test/?" + b64, Map.of(), null),
            egress.refusal("http://bank.test/x", Map.of("X-Token", SECRET), null),
            egress.refusal("wss://decoy.test:8443/s", Map.of(), utf8(reversed(SECRET))),
            egress.refusal("https://u:" + SECRET + "@decoy.test/", Map.of(), null))) {
      assertTrue(refused.isPresent());
      assertTrue(refused.get().contains("the secret \"bank\""), refused.get());
      assertFalse(refused.get().contains(SECRET), refused.get());
    }
    String hex = HexFormat.of().formatHex(utf8(SECRET));
    String named = egress.refusal("https://" + hex + ".decoy.test:444/", Map.of(), null).get();
    assertTrue(named.contains("https://(a name that carries the secret).decoy.test:444"), named);
    assertFalse(named.contains(hex.substring(0, 8)), named);
    String typed = egress.refusal("https://bank.test/", Map.of(), utf8("Hunter2Hunter")).get();
    assertTrue(typed.contains("\"typed-password\"") && !typed.contains("\"bank\""), typed);
  }
}
