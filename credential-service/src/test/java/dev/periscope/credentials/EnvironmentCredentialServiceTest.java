package dev.periscope.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

class EnvironmentCredentialServiceTest {
  private final EnvironmentCredentialService service =
      new EnvironmentCredentialService(
          Map.of("github", "GH_TOKEN", "shop.password", "SHOP_PW", "empty", "EMPTY_VAR"),
          Map.of("GH_TOKEN", "canary-7f3a9", "EMPTY_VAR", "")::get);

  @Test
  void resolvesAReferenceThroughItsVariable() {
    assertEquals("canary-7f3a9", service.resolve("github").orElseThrow().reveal());
  }

  @Test
  void resolvesNothingForAnUnknownReferenceAnUnsetVariableOrAnEmptyValue() {
    assertTrue(service.resolve("nope").isEmpty());
    assertTrue(service.resolve("shop.password").isEmpty());
    assertTrue(service.resolve("empty").isEmpty());
  }

  @Test
  void neverShowsASecretWhenPrinted() {
    var secret = service.resolve("github").orElseThrow();
    assertFalse(secret.toString().contains("canary"));
    assertFalse(String.valueOf(service).contains("canary"));
    assertEquals(java.util.List.of("empty", "github", "shop.password"), java.util.List.copyOf(service.references()));
  }
}
