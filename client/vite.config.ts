// Vite builds the browser app from client/ into client/dist, which the relay serves.
// In development the dev server proxies the relay's REST API and sockets (relay on :3000).
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
const project = fileURLToPath(new URL('..', import.meta.url));
const relay = process.env.RELAY_URL ?? 'http://127.0.0.1:3000';

export default defineConfig({
  root,
  plugins: [vue()],
  resolve: { alias: { '@shared': fileURLToPath(new URL('../shared', import.meta.url)) } },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 800 },
  // The instructor panel's sweep runs in a module worker (it imports the simulator from shared/).
  worker: { format: 'es' },
  // The app imports ../shared (the algorithms and the protocol) directly.
  server: {
    fs: { allow: [project] },
    proxy: {
      '/api': { target: relay, changeOrigin: true },
      '/socket.io': { target: relay, ws: true, changeOrigin: true },
      '/ws': { target: relay, ws: true, changeOrigin: true },
    },
  },
});
