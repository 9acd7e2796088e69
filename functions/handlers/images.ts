export { renderImage as handler } from '../images/render';
