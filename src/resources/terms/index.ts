// The terms resource's public surface: what other resources may use. Anything else in this folder is its own.
export { recountTerms } from './term-counts';
