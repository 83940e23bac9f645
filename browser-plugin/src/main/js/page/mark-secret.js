// Runs inside Chromium, on the field a credential is filled into (CredentialFields): marks it in the environment's
// registry as holding a secret, so that no observation reads its value (state.js).

const markSecret = (el, key) => {
  const registry = window[key];
  if (!registry) return;
  if (!registry.secrets) registry.secrets = new WeakSet();
  registry.secrets.add(el);
};

export default markSecret;
