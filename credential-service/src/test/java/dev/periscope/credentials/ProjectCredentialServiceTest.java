package dev.periscope.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.periscope.api.host.OriginPattern;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProjectCredentialServiceTest {
  @TempDir Path profile;

  private ProjectCredentialService service() {
    CredentialStore store = new CredentialStore(profile);
    store.put("shop-password", "canary-store-51c".toCharArray());
    return new ProjectCredentialService(
        Map.of(
            "github", ProjectCredentialService.Source.environment("GH_TOKEN", List.of()),
            "shop",
                ProjectCredentialService.Source.store(
                    "shop-password", List.of(OriginPattern.parse("https://shop.test"))),
            "unset", ProjectCredentialService.Source.environment("UNSET_VAR", List.of()),
            "empty", ProjectCredentialService.Source.environment("EMPTY_VAR", List.of()),
            "absent", ProjectCredentialService.Source.store("never-stored", List.of())),
        Map.of("GH_TOKEN", "canary-7f3a9", "EMPTY_VAR", "")::get,
        Optional.of(store));
  }

  @Test
  void resolvesAReferenceThroughItsVariableOrTheStore() {
    assertEquals("canary-7f3a9", service().resolve("github").orElseThrow().reveal());
    assertEquals("canary-store-51c", service().resolve("shop").orElseThrow().reveal());
    assertEquals("https://shop.test", service().origins("shop").get(0).toString());
    assertEquals(List.of(), service().origins("github"));
  }

  @Test
  void resolvesNothingForAnUnknownReferenceAnUnsetVariableAnEmptyValueOrAMissingName() {
    for (String ref : List.of("nope", "unset", "empty", "absent")) {
      assertTrue(service().resolve(ref).isEmpty(), ref);
    }
  }

  @Test
  void neverShowsASecretWhenPrinted() {
    var secret = service().resolve("github").orElseThrow();
    assertFalse(secret.toString().contains("canary"));
    assertFalse(String.valueOf(service()).contains("canary"));
    assertEquals(
        List.of("absent", "empty", "github", "shop", "unset"), List.copyOf(service().references()));
  }
}
