/** The eval's HTML report: one self-contained file. */
export { renderReport, reportLimits } from './render-report';
