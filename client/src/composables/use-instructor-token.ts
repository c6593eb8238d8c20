// The instructor's token: arrives once as `?token=...` in the URL the server prints, is kept in
// sessionStorage (this tab only) and taken out of the address bar so it does not end up in
// screenshots, history or a projected URL.
import { ref } from 'vue';
import { useRoute, useRouter } from 'vue-router';

const KEY = 'election-lab:token';

export function useInstructorToken() {
  const route = useRoute();
  const router = useRouter();
  const token = ref<string | null>(sessionStorage.getItem(KEY));
  const fromUrl = route.query.token;
  if (typeof fromUrl === 'string' && fromUrl) {
    set(fromUrl);
    const { token: _dropped, ...query } = route.query;
    void router.replace({ query });
  }

  function set(value: string | null): void {
    token.value = value && value.trim() ? value.trim() : null;
    if (token.value) sessionStorage.setItem(KEY, token.value);
    else sessionStorage.removeItem(KEY);
  }

  return { token, set };
}
