// A library the Jsonnet files import: it changes what they give, so it is a record too.
{ variant: 'decode' }
