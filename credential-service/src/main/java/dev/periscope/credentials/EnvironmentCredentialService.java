package dev.periscope.credentials;

import dev.periscope.api.host.CredentialService;
import dev.periscope.api.host.Secret;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Function;

/**
 * A project's credential references resolved from environment variables ({@code github: {env: GITHUB_TOKEN}}).
 * An unset or empty variable resolves to nothing, never to an empty secret.
 */
public final class EnvironmentCredentialService implements CredentialService {
  private final Map<String, String> variablesByRef;
  private final Function<String, String> environment;

  public EnvironmentCredentialService(Map<String, String> variablesByRef, Function<String, String> environment) {
    this.variablesByRef = new TreeMap<>(variablesByRef);
    this.environment = environment;
  }

  public EnvironmentCredentialService(Map<String, String> variablesByRef) {
    this(variablesByRef, System::getenv);
  }

  @Override
  public Set<String> references() {
    return variablesByRef.keySet();
  }

  @Override
  public Optional<Secret> resolve(String reference) {
    String variable = variablesByRef.get(reference);
    if (variable == null) {
      return Optional.empty();
    }
    String value = environment.apply(variable);
    return value == null || value.isEmpty() ? Optional.empty() : Optional.of(Secret.of(value));
  }

  @Override
  public String toString() {
    return "EnvironmentCredentialService" + variablesByRef.keySet();
  }
}
