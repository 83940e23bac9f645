package dev.periscope.api.host;

import java.util.Optional;
import java.util.Set;

/**
 * Resolves the credential references configured for the current project ({@code github}, {@code
 * shop.password}) to secret values. The model only ever names a reference.
 */
public interface CredentialService {
  /** The configured references, for listing in errors. Never values. */
  Set<String> references();

  /**
   * The secret for a reference, or empty when the reference is unknown or its source holds no
   * value.
   */
  Optional<Secret> resolve(String reference);

  /**
   * The origins a reference may be filled into; empty when the project bound it to none (any
   * origin, after approval). A caller refuses every other origin before it asks for approval.
   */
  default java.util.List<OriginPattern> origins(String reference) {
    return java.util.List.of();
  }
}
