package dev.periscope.api.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class SecretTest {
  private static final String M = "[REDACTED:bank]";
  private final Secret secret = Secret.of("p@ss w/rd+7é");

  @Test
  void neverShowsItsValueInToString() {
    assertFalse(secret.toString().contains("p@ss"));
    assertEquals("Secret[redacted]", secret.toString());
  }

  @Test
  void cannotBeSerialized() {
    assertFalse(java.io.Serializable.class.isAssignableFrom(Secret.class));
  }

  @Test
  void replacesEveryPlainCopy() {
    assertEquals("a " + M + " b " + M, secret.redactFrom("a p@ss w/rd+7é b p@ss w/rd+7é", M));
  }

  @Test
  void replacesTheFormsAUrlCarries() {
    assertEquals(
        "/echo?q=" + M + "&x=1", secret.redactFrom("/echo?q=p%40ss+w%2Frd%2B7%C3%A9&x=1", M));
    assertEquals("/echo/" + M, secret.redactFrom("/echo/p%40ss%20w%2Frd%2B7%C3%A9", M));
    assertEquals("/echo/" + M, secret.redactFrom("/echo/p%40ss%20w%2frd%2b7%c3%a9", M));
    // encodeURIComponent leaves / and @ alone where URLEncoder would not: any mix is a copy.
    assertEquals("?q=" + M, secret.redactFrom("?q=p@ss%20w/rd%2B7%C3%A9", M));
    assertEquals("?q=" + M, Secret.of("a!b").redactFrom("?q=a%21b", M));
  }

  @Test
  void replacesACopyCutOffAtTheEnd() {
    assertEquals("Welcome " + M, secret.redactFrom("Welcome p@ss w/", M));
  }

  @Test
  void leavesOtherTextAloneAndTheSameInstance() {
    String text = "nothing here, p@ss";
    assertSame(text, secret.redactFrom(text, M));
    assertEquals("", Secret.of("").redactFrom("", M));
    assertEquals("text", Secret.of("").redactFrom("text", M));
  }
}
