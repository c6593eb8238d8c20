// Routes: the join page, a lab's dashboard, a student's process view, the instructor's panel.
import { createRouter, createWebHistory } from 'vue-router';

export const router = createRouter({
  history: createWebHistory(),
  routes: [
    {
      path: '/',
      name: 'home',
      component: () => import('./pages/HomePage.vue'),
      meta: { title: 'Election Lab' },
    },
    {
      path: '/lab/:lab',
      name: 'dashboard',
      component: () => import('./pages/DashboardPage.vue'),
      props: true,
      meta: { title: 'Dashboard' },
    },
    // `:id` is a process id, or `new` for the next free one (the page then replaces it with the id it got).
    {
      path: '/lab/:lab/process/:id',
      name: 'process',
      component: () => import('./pages/ProcessPage.vue'),
      props: true,
      meta: { title: 'Process' },
    },
    {
      path: '/lab/:lab/projector',
      name: 'projector',
      component: () => import('./pages/ProjectorPage.vue'),
      props: true,
      meta: { title: 'Projector' },
    },
    // A student's private lab for the open "break it" challenge.
    {
      path: '/lab/:lab/challenge',
      name: 'challenge',
      component: () => import('./pages/ChallengePage.vue'),
      props: true,
      meta: { title: 'Break it' },
    },
    {
      path: '/lab/:lab/instructor',
      name: 'instructor',
      component: () => import('./pages/InstructorPage.vue'),
      props: true,
      meta: { title: 'Instructor' },
    },
    {
      path: '/join/:code?',
      name: 'join',
      component: () => import('./pages/JoinPage.vue'),
      props: true,
      meta: { title: 'Join' },
    },
    // Replay any trace: `?lab=NAME` loads that lab's trace from the relay; or open a file on the page.
    {
      path: '/replay',
      name: 'replay',
      component: () => import('./pages/ReplayPage.vue'),
      meta: { title: 'Replay' },
    },
    {
      path: '/:rest(.*)*',
      name: 'not-found',
      component: () => import('./pages/NotFoundPage.vue'),
      meta: { title: 'Not found' },
    },
  ],
});

router.afterEach((to) => {
  const lab = typeof to.params.lab === 'string' ? ` · ${to.params.lab}` : '';
  document.title = `${String(to.meta.title ?? 'Election Lab')}${lab}`;
});
