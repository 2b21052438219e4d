// Argo CD evaluates this file; it applies whatever objects.txt evaluates to.
import 'objects.txt'
