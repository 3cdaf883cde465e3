// `node --import tsx --import ./register.mjs out/main/app.js`: 'electron' resolves to the fake.
import { register } from 'node:module';

register('./hooks.mjs', import.meta.url);
